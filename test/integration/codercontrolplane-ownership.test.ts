// What a control plane may create and take over: workspace RBAC outside its own namespace only where the
// namespace consents, and never an object of a child's name that someone else made.
import { AppsV1Api, CoreV1Api, EventsV1Api, RbacAuthorizationV1Api, type V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { controlPlaneLabels } from '../../src/controllers/codercontrolplane/desired/names.ts';
import { workspaceRoleBindingName, workspaceRoleName } from '../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import { apiStatus } from '../harness/api-status.ts';
import type { ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';

const consentLabel = 'coder.com/workspace-namespace=true';
const consentAnnotation = 'coder.com/workspace-control-planes';

describe('CoderControlPlane ownership and workspace namespace consent', () => {
  let env: OperatorEnvironment | undefined;
  let cp: ControlPlane;
  let admin: string;
  let client: CoderControlPlaneClient;
  let rbac: RbacAuthorizationV1Api;
  let apps: AppsV1Api;

  before(async () => {
    env = await operatorEnvironment();
    ({ cp, admin } = env);
    client = coderControlPlaneClient(cp.adminConfig());
    rbac = cp.adminConfig().makeApiClient(RbacAuthorizationV1Api);
    apps = cp.adminConfig().makeApiClient(AppsV1Api);
  });
  after(() => env?.stop());

  const namespace = async (name: string) => {
    await kubectlOk(admin, ['create', 'namespace', name]);
    return name;
  };
  const aControlPlane = (ns: string, name: string, spec: CoderControlPlane['spec']): CoderControlPlane => ({
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderControlPlane',
    metadata: { name, namespace: ns },
    spec: { operatorAccess: { disabled: true }, ...spec },
  });
  const condition = async (ns: string, name: string, type: string) =>
    (await client.get(ns, name)).status?.conditions?.find((c) => c.type === type);
  const conditionIs = (ns: string, name: string, type: string, status: string, reason: string) =>
    eventually(`${type} ${status} ${reason} on ${ns}/${name}`, async () => {
      const c = await condition(ns, name, type);
      return c?.status === status && c.reason === reason ? c : undefined;
    });
  /** The status is written after every child is applied, so a status of this generation means they were. */
  const reconciled = (ns: string, name: string) =>
    eventually(`${ns}/${name} reconciled`, async () => {
      const obj = await client.get(ns, name);
      return obj.status?.observedGeneration === obj.metadata.generation && obj.status?.conditions?.some((c) => c.type === 'SpecValid');
    });
  const rbacIn = async (ns: string) => ({
    roles: (await rbac.listNamespacedRole({ namespace: ns })).items.map((r) => r.metadata!.name!),
    bindings: (await rbac.listNamespacedRoleBinding({ namespace: ns })).items.map((r) => r.metadata!.name!),
  });
  const warningEvent = (ns: string, name: string, reason: string, text: string) =>
    eventually(`a Warning Event ${reason} on ${ns}/${name} mentioning ${text}`, async () => {
      const events = (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items;
      return events.find((e) => e.regarding?.name === name && e.type === 'Warning' && e.reason === reason && e.note?.includes(text));
    });
  // Garbage collection waits for the collector to notice the kind; the other Deployment GC wait allows 60 s.
  const gone = (what: string, read: () => Promise<unknown>) =>
    eventually(
      what,
      () =>
        read().then(
          () => false,
          (err) => apiStatus(err).code === 404,
        ),
      { timeoutMs: 90_000 },
    );

  it('creates workspace RBAC in another namespace only once it carries the label and lists the control plane', async () => {
    const ns = await namespace('consent-owner');
    const other = await namespace('consent-workspaces');
    await client.create(aControlPlane(ns, 'coder', { rbac: { workspaceNamespaces: [other] } }));
    await reconciled(ns, 'coder');
    assert.deepEqual(await rbacIn(other), { roles: [], bindings: [] });

    const refused = await conditionIs(ns, 'coder', 'WorkspaceRBACReady', 'False', 'NamespaceNotOptedIn');
    assert.match(refused.message, /namespace "consent-workspaces" lacks the label coder\.com\/workspace-namespace=true/);
    assert.match(refused.message, /"consent-owner\/coder"/);
    await warningEvent(ns, 'coder', 'NamespaceNotOptedIn', 'consent-workspaces');
    assert.deepEqual(await rbacIn(other), { roles: [], bindings: [] });
    // Its own namespace needs no consent.
    await eventually('the workspace Role in the control plane namespace', async () => (await rbacIn(ns)).roles.length === 1);

    await kubectlOk(admin, ['label', 'namespace', other, consentLabel]);
    await eventually('the message to name the missing annotation entry', async () =>
      (await condition(ns, 'coder', 'WorkspaceRBACReady'))?.message.includes(
        `annotation ${consentAnnotation} does not list "consent-owner/coder"`,
      ),
    );
    assert.deepEqual(await rbacIn(other), { roles: [], bindings: [] });

    await kubectlOk(admin, ['annotate', 'namespace', other, `${consentAnnotation}=someone/else, consent-owner/coder`]);
    await conditionIs(ns, 'coder', 'WorkspaceRBACReady', 'True', 'Applied');
    const cpObj = await client.get(ns, 'coder');
    assert.deepEqual(await rbacIn(other), { roles: [workspaceRoleName(cpObj)], bindings: [workspaceRoleBindingName(cpObj)] });

    // Consent withdrawn: what the operator made there goes.
    await kubectlOk(admin, ['annotate', 'namespace', other, `${consentAnnotation}=someone/else`, '--overwrite']);
    await conditionIs(ns, 'coder', 'WorkspaceRBACReady', 'False', 'NamespaceNotOptedIn');
    await eventually('the Role and RoleBinding removed after consent is withdrawn', async () => {
      const left = await rbacIn(other);
      return left.roles.length + left.bindings.length === 0;
    });
  });

  it('accepts "*" in the annotation, and reports a namespace that does not exist', async () => {
    const ns = await namespace('consent-star');
    const other = await namespace('consent-star-workspaces');
    await kubectlOk(admin, ['label', 'namespace', other, consentLabel]);
    await kubectlOk(admin, ['annotate', 'namespace', other, `${consentAnnotation}=*`]);
    await client.create(aControlPlane(ns, 'coder', { rbac: { workspaceNamespaces: [other, 'consent-missing'] } }));
    const refused = await conditionIs(ns, 'coder', 'WorkspaceRBACReady', 'False', 'NamespaceNotOptedIn');
    assert.match(refused.message, /namespace "consent-missing" does not exist/);
    await eventually('the Role and RoleBinding in the namespace that allows "*"', async () => {
      const made = await rbacIn(other);
      return made.roles.length === 1 && made.bindings.length === 1;
    });
  });

  it('leaves a foreign Deployment of the child name untouched, says so, and never deletes it', async () => {
    const ns = await namespace('foreign-deployment');
    const selector = controlPlaneLabels(aControlPlane(ns, 'coder', {}));
    const foreign: V1Deployment = {
      metadata: { name: 'coder', namespace: ns, labels: { owner: 'someone-else' } },
      spec: {
        replicas: 0,
        // The selector the control plane's Deployment uses, so that nothing but ownership stops a takeover.
        selector: { matchLabels: selector },
        template: { metadata: { labels: selector }, spec: { containers: [{ name: 'theirs', image: 'example.com/theirs:1' }] } },
      },
    };
    await apps.createNamespacedDeployment({ namespace: ns, body: foreign });
    await client.create(aControlPlane(ns, 'coder', {}));
    await reconciled(ns, 'coder');
    const seen = await apps.readNamespacedDeployment({ namespace: ns, name: 'coder' });
    assert.equal(seen.metadata!.ownerReferences, undefined);
    assert.equal(seen.metadata!.annotations?.['coder.com/applied-hash'], undefined);
    assert.deepEqual(
      seen.spec!.template.spec!.containers.map((c) => c.name),
      ['theirs'],
    );
    const refused = await conditionIs(ns, 'coder', 'ChildrenOwned', 'False', 'ObjectNotOwned');
    assert.match(refused.message, /Deployment "foreign-deployment\/coder"/);
    await warningEvent(ns, 'coder', 'ObjectNotOwned', 'Deployment "foreign-deployment/coder"');
    // The Service is still the control plane's.
    const service = await cp.adminConfig().makeApiClient(CoreV1Api).readNamespacedService({ namespace: ns, name: 'coder' });
    assert.ok(service.metadata!.ownerReferences?.some((r) => r.kind === 'CoderControlPlane' && r.controller));

    await client.delete(ns, 'coder');
    await gone('the control plane to be gone', () => client.get(ns, 'coder'));
    await gone('the Service to be garbage-collected', () =>
      cp.adminConfig().makeApiClient(CoreV1Api).readNamespacedService({ namespace: ns, name: 'coder' }),
    );
    assert.deepEqual((await apps.readNamespacedDeployment({ namespace: ns, name: 'coder' })).metadata!.labels, { owner: 'someone-else' });
  });

  it('leaves a foreign Role of the workspace Role name in a consenting namespace untouched, and never deletes it', async () => {
    const ns = await namespace('foreign-role-owner');
    const other = await namespace('foreign-role-workspaces');
    await kubectlOk(admin, ['label', 'namespace', other, consentLabel]);
    await kubectlOk(admin, ['annotate', 'namespace', other, `${consentAnnotation}=${ns}/coder`]);
    const probe = aControlPlane(ns, 'coder', { rbac: { workspaceNamespaces: [other] } });
    const roleName = workspaceRoleName(probe);
    await rbac.createNamespacedRole({
      namespace: other,
      body: { metadata: { name: roleName, namespace: other }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    });
    await client.create(probe);
    await reconciled(ns, 'coder');
    const role = await rbac.readNamespacedRole({ namespace: other, name: roleName });
    assert.deepEqual(
      role.rules!.map((r) => [r.apiGroups, r.resources, r.verbs]),
      [[[''], ['configmaps'], ['get']]],
    );
    assert.equal(role.metadata!.labels, undefined);
    // No RoleBinding that would hand the foreign Role to the control plane's ServiceAccount.
    assert.deepEqual((await rbacIn(other)).bindings, []);
    const refused = await conditionIs(ns, 'coder', 'WorkspaceRBACReady', 'False', 'ObjectNotOwned');
    assert.match(refused.message, new RegExp(`Role "${other}/${roleName}"`));
    await warningEvent(ns, 'coder', 'ObjectNotOwned', roleName);

    await client.delete(ns, 'coder');
    await gone('the control plane to be gone', () => client.get(ns, 'coder'));
    assert.ok(await rbac.readNamespacedRole({ namespace: other, name: roleName }));
  });
});
