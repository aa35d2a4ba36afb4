// A namespace being deleted: the operator creates nothing there, says so at debug level only,
// and the deletion completes, for the control plane's own namespace and for a workspace namespace.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { workspaceRoleName } from '../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { installOperatorRbac, startOperator, type RunningOperator } from '../harness/operator.ts';
import { eventually } from '../harness/wait.ts';

// Namespace deletion waits for every object in it to go, and garbage collection for its informers.
const deletionDeadlineMs = 180_000;

interface LogLine {
  level: string;
  msg: string;
  namespace?: string;
  raw: string;
}

describe('CoderControlPlane in a namespace being deleted', () => {
  let cp: ControlPlane | undefined;
  let operator: RunningOperator | undefined;
  let admin: string;
  let client: CoderControlPlaneClient;

  before(async () => {
    cp = await startControlPlane({ controllers: true });
    admin = cp.adminKubeconfigPath;
    operator = await startOperator(cp, await installOperatorRbac(cp), { args: ['--log-level=debug'] });
    client = coderControlPlaneClient(cp.adminConfig());
  });
  after(async () => {
    await operator?.process.stop();
    await cp?.stop();
  });

  const aControlPlane = (namespace: string, spec: CoderControlPlane['spec'] = {}): CoderControlPlane => ({
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderControlPlane',
    metadata: { name: 'coder', namespace },
    spec: { operatorAccess: { disabled: true }, ...spec },
  });
  const reconciled = (namespace: string) =>
    eventually(`${namespace}/coder reconciled`, async () => {
      const obj = await client.get(namespace, 'coder');
      return obj.status?.observedGeneration === obj.metadata.generation && obj.status?.conditions?.some((c) => c.type === 'SpecValid');
    });
  const waitGone = (namespace: string) =>
    eventually(
      `namespace ${namespace} gone`,
      async () => {
        const r = await kubectl(admin, ['get', 'namespace', namespace]);
        return r.code !== 0 && /NotFound/.test(r.stderr);
      },
      { timeoutMs: deletionDeadlineMs, intervalMs: 500 },
    );
  const deleteAndWaitGone = async (namespace: string) => {
    await kubectlOk(admin, ['delete', 'namespace', namespace, '--wait=false']);
    await waitGone(namespace);
  };
  const holdPolicy = 'hold-control-plane-deletes';
  const holdDeletesOfControlPlanes = async (namespace: string) => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: holdPolicy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: ['coder.com'], apiVersions: ['*'], operations: ['DELETE'], resources: ['codercontrolplanes'] }],
        },
        validations: [{ expression: 'false', message: 'held by the test' }],
      },
    };
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: holdPolicy },
      spec: {
        policyName: holdPolicy,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    };
    await kubectlOk(admin, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [policy, binding] }));
    // Policies take effect once the API server has loaded them: a dry-run delete tells when.
    await eventually('the policy to refuse deleting the control plane', async () => {
      const r = await kubectl(admin, ['delete', '-n', namespace, 'codercontrolplane/coder', '--dry-run=server']);
      return r.code !== 0 && /held by the test/.test(r.stderr);
    });
  };
  const releaseDeletesOfControlPlanes = () =>
    kubectlOk(admin, ['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', holdPolicy]);
  const logLines = (): LogLine[] =>
    readFileSync(operator!.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ ...(JSON.parse(l) as Omit<LogLine, 'raw'>), raw: l }));
  /** Error and warning lines that name the namespace, as a field or in a request path. */
  const problemsAbout = (namespace: string) =>
    logLines()
      .filter((l) => l.level === 'error' || l.level === 'warn')
      .filter(
        (l) => l.raw.includes(`"${namespace}"`) || l.raw.includes(`/namespaces/${namespace}/`) || l.raw.includes(`namespace ${namespace} `),
      )
      .map((l) => l.raw);

  it('creates nothing in its own namespace once it is being deleted, logs no error, and lets the deletion complete', async () => {
    await kubectlOk(admin, ['create', 'namespace', 'doomed']);
    await client.create(aControlPlane('doomed'));
    await reconciled('doomed');
    // The namespace controller deletes the control plane at once, and a control plane being deleted only
    // finalizes. A policy refusing that delete keeps it live in the terminating namespace, so that the
    // reconciles this test is about happen every time, not only when they win a race.
    await holdDeletesOfControlPlanes('doomed');
    await kubectlOk(admin, ['delete', 'namespace', 'doomed', '--wait=false']);
    await eventually('a debug line saying why the reconcile ended', async () => {
      await kubectlOk(admin, ['annotate', '-n', 'doomed', 'codercontrolplane/coder', `test/poke=${Date.now()}`, '--overwrite']);
      return logLines().some((l) => l.level === 'debug' && l.namespace === 'doomed' && /namespace is being deleted/.test(l.msg));
    });
    await releaseDeletesOfControlPlanes();
    await waitGone('doomed');
    assert.deepEqual(problemsAbout('doomed'), [], 'error or warning lines about the namespace being deleted');
  });

  it('stops writing workspace RBAC into a workspace namespace being deleted, logs no error, and lets the deletion complete', async () => {
    await kubectlOk(admin, ['create', 'namespace', 'home']);
    await kubectlOk(admin, ['create', 'namespace', 'workspaces-doomed']);
    await kubectlOk(admin, ['label', 'namespace', 'workspaces-doomed', 'coder.com/workspace-namespace=true']);
    await kubectlOk(admin, ['annotate', 'namespace', 'workspaces-doomed', 'coder.com/workspace-control-planes=home/coder']);
    const created = await client.create(aControlPlane('home', { rbac: { workspaceNamespaces: ['workspaces-doomed'] } }));
    const rbac = cp!.adminConfig().makeApiClient(RbacAuthorizationV1Api);
    await eventually('the workspace Role in workspaces-doomed', () =>
      rbac.readNamespacedRole({ namespace: 'workspaces-doomed', name: workspaceRoleName(created) }).catch(() => undefined),
    );
    await deleteAndWaitGone('workspaces-doomed');
    assert.deepEqual(problemsAbout('workspaces-doomed'), [], 'error or warning lines about the namespace being deleted');
  });
});
