// The generated validators against a real API server with the CRDs applied: every bad object is rejected
// by both with the same field paths and messages (same reasons, too), every good object and sample is
// accepted by both with the same defaults, and transition rules agree on real updates.
import type { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { allResources } from '../../generated/clients/index.ts';
import { kindValidators } from '../../generated/validators/index.ts';
import { collectionPath } from '../../src/runtime/resource.ts';
import type { ValidationError } from '../../src/validation/error.ts';
import { runValidation, withDefaults } from '../../src/validation/validate.ts';
import { validatorFor } from '../../src/validation/validator-lookup.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { eventually } from '../harness/wait.ts';
import { ruleCases } from '../unit/validation/rule-cases.ts';
import { controlPlaneManifest } from '../fixtures/codercontrolplane.ts';
import { badObjects, goodObjects, updates, type Row } from './validation/bad-objects.ts';
import { request, serverVerdict, type Finding } from './validation/server-verdict.ts';

const repo = join(import.meta.dirname, '..', '..');
type Obj = Record<string, unknown>;

function collection(obj: Obj): string {
  const resource = allResources.find((r) => r.kind === obj.kind);
  assert.ok(resource, `a resource for kind ${String(obj.kind)}`);
  return collectionPath(resource, (obj.metadata as { namespace?: string }).namespace ?? 'coder');
}

function validate(obj: Obj, old?: Obj): ValidationError[] {
  const validator = validatorFor(kindValidators, String(obj.apiVersion), String(obj.kind));
  assert.ok(validator, `a validator for ${String(obj.kind)}`);
  return runValidation(validator, obj, old);
}

const show = (f: Finding) => `${f.path} | ${f.reason} | ${f.message}`;
const sameFindings = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

interface Outcome {
  name: string;
  server: string[];
  validator: string[];
}

/** Collects disagreements; prints them all at the end instead of stopping at the first. */
class Comparison {
  readonly disagreements: Outcome[] = [];
  rows = 0;

  record(name: string, server: string[], validator: string[]): void {
    this.rows++;
    if (!sameFindings(server, validator)) this.disagreements.push({ name, server, validator });
  }

  report(what: string): string {
    const lines = this.disagreements.map(
      (d) =>
        `  ${d.name}\n    API server: ${d.server.join('\n                ') || '(accepted)'}\n    validator:  ${d.validator.join('\n                ') || '(accepted)'}`,
    );
    return `${what}: ${this.rows} objects, ${this.disagreements.length} disagreement(s)${lines.length ? `\n${lines.join('\n')}` : ''}`;
  }
}

function samples(): Row[] {
  const dir = join(repo, 'config', 'samples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map((d) => d.toJS() as Obj)
        .filter((o) => String(o.apiVersion).startsWith('coder.com/'))
        .map((obj) => ({ name: `sample ${file} ${String((obj.metadata as Obj).name)}`, obj: obj as Row['obj'] })),
    );
}

describe('generated validators and the API server', () => {
  let cp: ControlPlane;
  let kc: KubeConfig;

  before(async () => {
    cp = await startControlPlane();
    kc = cp.adminConfig();
    const kubeconfig = cp.adminKubeconfigPath;
    await kubectlOk(kubeconfig, ['apply', '-f', join(repo, 'config', 'crd', 'bases')]);
    await waitForCrdsEstablished(kubeconfig);
    await kubectlOk(kubeconfig, ['create', 'namespace', 'coder']);
  });
  after(() => cp?.stop());

  it('rejects every bad object with the same paths, reasons and messages', async () => {
    const rows: Row[] = [
      ...badObjects,
      ...ruleCases.flatMap((c) =>
        c.rejects.filter((r) => !r.old).map((r, i) => ({ name: `${c.kind} rule "${c.rule}" #${i + 1}`, obj: r.obj })),
      ),
    ];
    const comparison = new Comparison();
    const acceptedByServer: string[] = [];
    for (const row of rows) {
      const verdict = await serverVerdict(kc, collection(row.obj), row.obj);
      if (!verdict.findings.length) acceptedByServer.push(row.name);
      comparison.record(row.name, verdict.findings.map(show), validate(row.obj).map(show));
    }
    console.log(comparison.report('bad objects'));
    assert.deepEqual(acceptedByServer, [], 'rows of the bad-object table that the API server accepts');
    assert.ok(rows.length >= 40, `at least 40 bad objects (have ${rows.length})`);
    assert.equal(comparison.disagreements.length, 0, comparison.report('bad objects'));
  });

  it('accepts every sample and good object, with the defaults the API server applies', async () => {
    const rows: Row[] = [
      ...samples(),
      ...goodObjects,
      ...ruleCases.flatMap((c) =>
        c.accepts.filter((a) => !a.old).map((a, i) => ({ name: `${c.kind} rule "${c.rule}" accepts #${i + 1}`, obj: a.obj })),
      ),
    ];
    const comparison = new Comparison();
    const defaults: string[] = [];
    for (const row of rows) {
      const verdict = await serverVerdict(kc, collection(row.obj), row.obj);
      comparison.record(row.name, verdict.findings.map(show), validate(row.obj).map(show));
      if (verdict.accepted) {
        const mine = withDefaults(validatorFor(kindValidators, String(row.obj.apiVersion), String(row.obj.kind))!, row.obj);
        try {
          assert.deepEqual(mine.spec, verdict.accepted.spec);
        } catch {
          defaults.push(`${row.name}: API server ${JSON.stringify(verdict.accepted.spec)}, validator ${JSON.stringify(mine.spec)}`);
        }
      }
    }
    console.log(comparison.report('good objects'));
    assert.equal(comparison.disagreements.length, 0, comparison.report('good objects'));
    assert.deepEqual(defaults, [], 'defaulted specs that differ');
  });

  it('agrees on updates: transition rules run against the stored object', async () => {
    const rows = [
      ...updates,
      ...ruleCases.flatMap((c) => [
        ...c.accepts.filter((a) => a.old).map((a, i) => ({ name: `${c.kind} "${c.rule}" accepts update #${i + 1}`, ...a })),
        ...c.rejects.filter((r) => r.old).map((r, i) => ({ name: `${c.kind} "${c.rule}" rejects update #${i + 1}`, ...r })),
      ]),
    ];
    const comparison = new Comparison();
    for (const u of rows) {
      const path = collection(u.old!);
      const created = await request(kc, 'POST', `${path}?fieldValidation=Strict`, u.old);
      assert.equal(created.code, 201, `${u.name}: creating the old object: ${JSON.stringify(created.body)}`);
      const stored = created.body as Obj;
      const next = { ...u.obj, metadata: { ...u.obj.metadata, resourceVersion: (stored.metadata as Obj).resourceVersion } };
      try {
        const verdict = await serverVerdict(kc, path, next, true);
        comparison.record(u.name, verdict.findings.map(show), validate(next, stored).map(show));
      } finally {
        const name = String((stored.metadata as Obj).name);
        const deleted = await request(kc, 'DELETE', `${path}/${name}`);
        assert.ok(deleted.code === 200 || deleted.code === 202, `${u.name}: deleting ${name}: ${deleted.code}`);
      }
    }
    console.log(comparison.report('updates'));
    assert.ok(rows.some((u) => u.name.includes('rejects')) && rows.some((u) => u.name.includes('accepts')));
    assert.equal(comparison.disagreements.length, 0, comparison.report('updates'));
  });

  it('forgives on update what the update leaves unchanged (ratcheting), like the API server', async () => {
    // Store an object that today's CRD rejects, under a CRD without the bound and the rule it breaks.
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/codercontrolplanes.coder.com';
    const real = (await request(kc, 'GET', crdPath)).body as Obj;
    const relaxed = structuredClone(real) as { spec: { versions: { schema: { openAPIV3Schema: Obj } }[] } };
    const spec = (relaxed.spec.versions[0]!.schema.openAPIV3Schema.properties as Record<string, Obj>).spec!;
    const props = spec.properties as Record<string, Obj>;
    const limits = (props.resources!.properties as Record<string, Obj>).limits!;
    delete (limits.additionalProperties as Obj).pattern;
    delete props.expose!['x-kubernetes-validations'];
    const setCrd = async (crd: unknown) => {
      const current = (await request(kc, 'GET', crdPath)).body as { metadata: { resourceVersion: string } };
      const body = { ...(crd as Obj), metadata: { ...((crd as Obj).metadata as Obj), resourceVersion: current.metadata.resourceVersion } };
      const res = await request(kc, 'PUT', crdPath, body);
      assert.equal(res.code, 200, JSON.stringify(res.body));
    };
    const path = collectionPath(
      allResources.find((r) => r.kind === 'CoderControlPlane')!,
      'coder',
    );
    const broken = controlPlaneManifest(
      { resources: { limits: { cpu: '1 GB' } }, expose: { ingress: { host: 'a' }, gateway: { host: 'a', parentRefs: [{ name: 'g' }] } } },
      'ratchet',
    );
    await setCrd(relaxed);
    let stored: Obj | undefined;
    try {
      stored = await eventually('the relaxed CRD to accept cpu "1 GB"', async () => {
        const res = await request(kc, 'POST', `${path}?fieldValidation=Strict`, broken);
        return res.code === 201 ? (res.body as Obj) : undefined;
      });
    } finally {
      await setCrd(real);
    }
    await eventually(
      'the real CRD to reject cpu "1 GB" again',
      async () => (await serverVerdict(kc, path, { ...broken, metadata: { ...broken.metadata, name: 'probe' } })).code === 422,
    );
    const meta = { ...(stored!.metadata as Obj) };
    const rows = [
      { name: 'labels only: the broken bound and rule are forgiven', obj: { ...stored!, metadata: { ...meta, labels: { a: 'b' } } } },
      {
        name: 'cpu changed to another invalid value',
        obj: { ...stored!, spec: { ...(stored!.spec as Obj), resources: { limits: { cpu: '2 GB' } } } },
      },
      {
        name: 'expose changed, still with ingress and gateway',
        obj: {
          ...stored!,
          spec: { ...(stored!.spec as Obj), expose: { ingress: { host: 'b' }, gateway: { host: 'b', parentRefs: [{ name: 'g' }] } } },
        },
      },
    ];
    const comparison = new Comparison();
    for (const row of rows) {
      const verdict = await serverVerdict(kc, path, row.obj, true);
      comparison.record(row.name, verdict.findings.map(show), validate(row.obj, stored).map(show));
    }
    console.log(comparison.report('ratcheting'));
    assert.equal(comparison.disagreements.length, 0, comparison.report('ratcheting'));
    assert.deepEqual(validate(rows[0]!.obj, stored), [], 'the labels-only update is accepted');
    assert.notDeepEqual(validate(rows[1]!.obj, stored), [], 'the changed cpu is rejected');
  });
});
