// The generated CRDs install on a real API server, every sample is accepted, and kubectl shows the docs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';

const crdFiles = readdirSync('config/crd/bases').filter((f) => f.endsWith('.yaml'));

describe('generated CRDs on a real API server', () => {
  let cp: ControlPlane;
  let kubeconfig: string;

  before(async () => {
    cp = await startControlPlane();
    kubeconfig = cp.adminKubeconfigPath;
    await kubectlOk(kubeconfig, ['apply', '-f', 'config/crd/bases/']);
  });
  after(() => cp?.stop());

  it('accepts every CRD as structural with names accepted and established', async () => {
    await waitForCrdsEstablished(kubeconfig);
    const crds = JSON.parse(await kubectlOk(kubeconfig, ['get', 'crd', '-o', 'json'])) as {
      items: { metadata: { name: string }; status: { conditions: { type: string; status: string; message: string }[] } }[];
    };
    assert.equal(crds.items.length, crdFiles.length);
    for (const crd of crds.items) {
      const status = Object.fromEntries(crd.status.conditions.map((c) => [c.type, c.status]));
      assert.deepEqual(
        { name: crd.metadata.name, ...status },
        {
          name: crd.metadata.name,
          NamesAccepted: 'True',
          Established: 'True',
          ...('NonStructuralSchema' in status ? { NonStructuralSchema: 'False' } : {}),
        },
        `CRD ${crd.metadata.name} conditions: ${JSON.stringify(crd.status.conditions)}`,
      );
    }
  });

  it('accepts every sample in config/samples/ with strict field validation', async () => {
    await kubectlOk(kubeconfig, ['create', 'namespace', 'coder']);
    const out = await kubectlOk(kubeconfig, ['apply', '--validate=strict', '-f', 'config/samples/']);
    const created = out
      .trim()
      .split('\n')
      .filter((l) => l.includes('coder.com/'));
    const kinds = new Set(created.map((l) => l.split('.')[0]));
    assert.equal(kinds.size, 7, `one or more sample per kind, got:\n${out}`);
    const listed = await kubectlOk(kubeconfig, ['get', 'coder', '-n', 'coder', '-o', 'name']);
    assert.equal(listed.trim().split('\n').length, created.length);
  });

  it('accepts the NetworkPolicy sample for the operator-to-Coder HTTP hop, as written', async () => {
    await kubectl(kubeconfig, ['create', 'namespace', 'coder']); // the samples test may have made it
    const file = 'config/samples/networkpolicy-coder-operator.yaml';
    const dryRun = await kubectlOk(kubeconfig, ['apply', '--dry-run=server', '--validate=strict', '-f', file]);
    assert.match(dryRun, /^networkpolicy\.networking\.k8s\.io\/coder-http-from-operator \w+ \(server dry run\)$/m);
    const stored = JSON.parse(await kubectlOk(kubeconfig, ['apply', '--validate=strict', '-f', file, '-o', 'json'])) as { spec: unknown };
    const written = parse(readFileSync(file, 'utf8')) as { spec: unknown };
    assert.deepEqual(stored.spec, written.spec, 'the API server keeps every field of the sample');
  });

  it('shows field descriptions in kubectl explain', async () => {
    const out = await kubectlOk(kubeconfig, ['explain', 'codercontrolplane.spec.database.connectionSecretRef']);
    assert.match(out, /PostgreSQL connection URL/);
    assert.match(out, /name\s+<string> -required-/);
    assert.match(out, /key\s+<string> -required-/);
  });

  it('prints the control plane columns in kubectl get', async () => {
    const out = await kubectlOk(kubeconfig, ['get', 'codercontrolplanes', '-n', 'coder']);
    assert.match(out.split('\n')[0]!, /^NAME\s+PHASE\s+URL\s+READY/);
  });
});
