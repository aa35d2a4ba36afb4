// CoderProvisioner end to end: the operator as its own process under its generated RBAC, a real control
// plane with controllers and kwok, a real PostgreSQL (operator access of the control plane), and the Coder
// API double holding the provisioner keys.
import { AppsV1Api, CoreV1Api, EventsV1Api, type V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, coderProvisionerClient, type CoderProvisionerClient } from '../../generated/clients/index.ts';
import type { CoderProvisioner } from '../../generated/types/coderprovisioner.ts';
import { apiStatus } from '../harness/api-status.ts';
import { startCoderApiDouble } from '../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess, operatorAccessToken } from '../harness/control-plane-with-access.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { eventually } from '../harness/wait.ts';
import { expectRefusedChild } from '../harness/refused-child.ts';
import { aProvisioner } from '../fixtures/coderprovisioner.ts';
import { grantsOf, unusedGrants, usedGrants, type Grant } from '../harness/rbac-usage.ts';
import { permissions } from '../../src/controllers/coderprovisioner/permissions.ts';

// Grants of the provisioner controller that this suite's audit log cannot show, each with the reason.
const notExercisedHere = new Map<Grant, string>([
  ...(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] as const).flatMap((verb): [Grant, string][] => [
    [`/pods:${verb}`, "the daemons' Role grants it, and Kubernetes lets a subject grant only what it holds itself"],
    [`/persistentvolumeclaims:${verb}`, "the daemons' Role grants it, and Kubernetes lets a subject grant only what it holds itself"],
  ]),
  ...['/secrets', '/serviceaccounts', 'rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings', 'apps/deployments'].map(
    (resource): [Grant, string] => [`${resource}:create`, 'server-side apply creates with a PATCH; the API server checks create then'],
  ),
  ['coder.com/coderprovisioners/finalizers:update', 'children carry blockOwnerDeletion: an admission check asks for it, never a request'],
  ['apps/deployments:delete', 'coderprovisioner-credentials.test.ts: a Deployment whose Secret lost its marks'],
  ['coder.com/coderprovisioners:get', 'a status write that meets a conflict reads the object afresh; no test here makes one'],
  ...['/serviceaccounts', 'rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings', 'apps/deployments'].map(
    (resource): [Grant, string] => [
      `${resource}:get`,
      'read only when a child the cache does not hold exists after all (a 409); no test races the cache',
    ],
  ),
]);

const conditionJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;

describe('CoderProvisioner controller', () => {
  let env: OperatorEnvironment;
  let client: CoderProvisionerClient;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  const secretsToFind: string[] = [];
  const tokens: string[] = [];
  const entitle = () => {
    env.coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
  };

  before(async () => {
    env = await operatorEnvironment();
    client = coderProvisionerClient(env.cp.adminConfig());
    apps = env.cp.adminConfig().makeApiClient(AppsV1Api);
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    entitle();
  });
  after(() => env?.stop());

  const namespace = async (name: string) => {
    await kubectlOk(env.admin, ['create', 'namespace', name]);
    return name;
  };
  const conditionLine = async (ns: string, name: string, type: string) =>
    (await kubectlOk(env.admin, ['-n', ns, 'get', 'coderprovisioner', name, '-o', conditionJsonpath(type)])).trim();
  const waitForCondition = (ns: string, name: string, type: string, prefix: string, timeoutMs = 60_000) =>
    eventually(`${ns}/${name} ${type} ${prefix}`, async () => (await conditionLine(ns, name, type)).startsWith(prefix), { timeoutMs });
  const keysIn = () => env.coder.state.provisionerKeys.map((k) => k.key);
  const readyProvisioner = (ns: string, name: string) =>
    eventually(
      `${ns}/${name} phase Ready`,
      async () => {
        const p = await client.get(ns, name);
        return p.status?.phase === 'Ready' && p.status.readyReplicas === 1 ? p : undefined;
      },
      { timeoutMs: 90_000 },
    );
  const deploymentOf = (ns: string, name: string): Promise<V1Deployment> =>
    apps.readNamespacedDeployment({ namespace: ns, name: `provisioner-${name}` });
  const keyOf = async (ns: string, secretName: string, key = 'key') =>
    Buffer.from((await core.readNamespacedSecret({ namespace: ns, name: secretName })).data![key]!, 'base64').toString();

  it('runs the sample next to the control-plane sample: waits for operator access, then becomes Ready', async () => {
    await namespace('coder');
    await kubectlOk(env.admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codercontrolplane.yaml']);
    await kubectlOk(env.admin, ['apply', '-f', 'config/samples/coder_v1alpha1_coderprovisioner.yaml']);
    await waitForCondition(
      'coder',
      'coder-provisioner',
      'OperatorAccessReady',
      'False OperatorAccessNotReady: CoderControlPlane "coder/coder"',
    );
    assert.match(await conditionLine('coder', 'coder-provisioner', 'Ready'), /^False OperatorAccessNotReady: OperatorAccessReady is False/);
    assert.equal(keysIn().length, 0, 'no key before operator access');

    // The control plane sample runs Coder's built-in database; give it one the operator can reach.
    const { token, controlPlane } = await controlPlaneWithOperatorAccess(env, 'coder', 'coder', { existing: true });
    secretsToFind.push(token);
    tokens.push(token);
    const ready = await readyProvisioner('coder', 'coder-provisioner');
    const [key] = keysIn();
    assert.ok(key, 'a key in Coder');
    assert.equal(key.name, 'coder-provisioner');
    assert.deepEqual(ready.status!.secretRef, { name: 'coder-provisioner-provisioner-key', key: 'key' });
    assert.equal(ready.status!.provisionerKeyID, key.id);
    assert.equal(ready.status!.organizationName, 'default');
    assert.equal(ready.status!.controlPlaneURL, controlPlane.status!.url);
    const material = await keyOf('coder', 'coder-provisioner-provisioner-key');
    assert.equal(material, env.coder.state.provisionerKeys[0]!.material);
    secretsToFind.push(material);

    const secret = await core.readNamespacedSecret({ namespace: 'coder', name: 'coder-provisioner-provisioner-key' });
    assert.equal(secret.metadata!.labels!['coder.com/credential'], 'true');
    assert.equal(secret.metadata!.annotations!['coder.com/credential-destinations'], 'coderprovisioner/coder-provisioner');
    assert.ok(secret.metadata!.ownerReferences!.some((r) => r.kind === 'CoderProvisioner' && r.uid === ready.metadata.uid && r.controller));

    const deployment = await deploymentOf('coder', 'coder-provisioner');
    const container = deployment.spec!.template.spec!.containers[0]!;
    assert.deepEqual(container.args, ['provisioner', 'start']);
    assert.deepEqual(JSON.parse(JSON.stringify(container.env!.slice(0, 2))), [
      { name: 'CODER_URL', value: 'http://coder.coder.svc.cluster.local:80' },
      { name: 'CODER_PROVISIONER_DAEMON_KEY', valueFrom: { secretKeyRef: { name: 'coder-provisioner-provisioner-key', key: 'key' } } },
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(container.env![2])), {
      name: 'TF_VAR_cloud_token',
      valueFrom: { secretKeyRef: { name: 'coder-provisioner-cloud', key: 'token' } },
    });
    assert.match(await conditionLine('coder', 'coder-provisioner', 'CredentialSecretReady'), /^True CredentialAccepted/);
    assert.deepEqual(key.tags, { scope: 'organization' });
    assert.equal(deployment.spec!.template.spec!.serviceAccountName, 'coder-provisioner-provisioner');
    await core.readNamespacedServiceAccount({ namespace: 'coder', name: 'coder-provisioner-provisioner' });
    const requests = env.coder.requests.filter((r) => r.path.includes('/provisionerkeys'));
    assert.ok(requests.length > 0 && requests.every((r) => r.token === token), 'key calls carry the operator token');
    const listed = await kubectlOk(env.admin, ['-n', 'coder', 'get', 'coderprovisioners']);
    assert.match(listed, /^coder-provisioner\s+Ready\s+True\s+1\s+coder\s/m);
    await kubectlOk(env.admin, ['-n', 'coder', 'wait', '--for=condition=Ready', 'coderprovisioner/coder-provisioner', '--timeout=30s']);
    assert.match(await conditionLine('coder', 'coder-provisioner', 'Ready'), /^True Available: /);
    assert.equal(await conditionLine('coder', 'coder-provisioner', 'Stalled'), '');
  });

  it('reports a Deployment the API server refuses, and becomes Ready again once the spec is fixed', async () => {
    await expectRefusedChild(env.admin, {
      kind: 'coderprovisioner',
      namespace: 'coder',
      name: 'coder-provisioner',
      refusedSpec: { replicas: -1 },
      message: /Deployment\.apps "provisioner-coder-provisioner" is invalid: spec\.replicas: Invalid value: -1/,
      repairSpec: { replicas: 1 },
    });
  });

  it('carries spec changes to Coder and the Deployment: new tags rotate the key and roll the pods', async () => {
    const before = keysIn()[0]!;
    const beforeDeployment = await deploymentOf('coder', 'coder-provisioner');
    await client.mergePatch('coder', 'coder-provisioner', {
      spec: { tags: { zone: 'eu' }, replicas: 2, nodeSelector: { pool: 'builders' }, extraArgs: ['--verbose'] },
    });
    const rotated = await eventually('the key rotated with the new tags', async () => {
      const key = keysIn()[0];
      return key && key.id !== before.id && key.tags?.zone === 'eu' ? key : undefined;
    });
    assert.equal(keysIn().length, 1, 'the old key is gone');
    const deployment = await eventually('the Deployment to follow the spec', async () => {
      const d = await deploymentOf('coder', 'coder-provisioner');
      return d.spec!.replicas === 2 && d.spec!.template.spec!.nodeSelector?.pool === 'builders' ? d : undefined;
    });
    assert.deepEqual(deployment.spec!.template.spec!.containers[0]!.args, ['provisioner', 'start', '--verbose']);
    assert.notEqual(
      deployment.spec!.template.metadata!.annotations!['checksum/provisioner-key'],
      beforeDeployment.spec!.template.metadata!.annotations!['checksum/provisioner-key'],
    );
    const p = await client.get('coder', 'coder-provisioner');
    assert.equal(p.status!.provisionerKeyID, rotated.id);
    const material = await keyOf('coder', 'coder-provisioner-provisioner-key');
    assert.equal(material, env.coder.state.provisionerKeys[0]!.material);
    secretsToFind.push(material);
    const events = await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'coder' });
    assert.ok(events.items.some((e) => e.reason === 'ProvisionerKeyRotated' && e.regarding?.name === 'coder-provisioner'));
  });

  it('says when its control plane loses operator access, and recovers when it returns', async () => {
    const ns = await namespace('access');
    await controlPlaneWithOperatorAccess(env, ns);
    await client.create(aProvisioner('p').inNamespace(ns).manifest());
    await readyProvisioner(ns, 'p');
    const cps = coderControlPlaneClient(env.cp.adminConfig());
    await cps.mergePatch(ns, 'coder', { spec: { operatorAccess: { disabled: true } } });
    await waitForCondition(
      ns,
      'p',
      'OperatorAccessReady',
      'False OperatorAccessNotReady: CoderControlPlane "access/coder" has no operator access',
    );
    // While access is off its token Secret is gone; one the control plane does not own keeps access off when it is turned on.
    await eventually('the token Secret deleted', async () =>
      core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' }).then(
        () => false,
        (err) => apiStatus(err).code === 404,
      ),
    );
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'coder-operator-token' }, stringData: { token: 'foreign' } },
    });
    await cps.mergePatch(ns, 'coder', { spec: { operatorAccess: { disabled: false } } });
    await eventually('the control plane to refuse the foreign token Secret', async () =>
      (await cps.get(ns, 'coder')).status?.conditions?.some((c) => c.type === 'OperatorTokenSecretOwned' && c.status === 'False'),
    );
    await waitForCondition(
      ns,
      'p',
      'OperatorAccessReady',
      'False OperatorAccessNotReady: CoderControlPlane "access/coder" has no operator access',
    );
    assert.equal((await client.get(ns, 'p')).status!.phase, 'Ready', 'the daemons keep running meanwhile');

    await core.deleteNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    const { token } = await operatorAccessToken(env, ns);
    secretsToFind.push(token);
    tokens.push(token);
    await waitForCondition(ns, 'p', 'OperatorAccessReady', 'True OperatorAccessReady', 60_000);
  });

  it('deletes its key from Coder on deletion, then the finalizer goes and the children follow', async () => {
    const p = await client.get('coder', 'coder-provisioner');
    assert.deepEqual(p.metadata.finalizers, ['coder.com/provisioner-key-cleanup']);
    const keyName = p.status!.provisionerKeyName!;
    assert.ok(keysIn().some((k) => k.name === keyName));
    await client.delete('coder', 'coder-provisioner');
    await eventually('the provisioner to be gone', async () =>
      client.get('coder', 'coder-provisioner').then(
        () => false,
        (err) => apiStatus(err).code === 404,
      ),
    );
    assert.ok(!keysIn().some((k) => k.name === keyName), 'the key is gone from Coder');
    assert.ok(env.coder.requests.some((r) => r.method === 'DELETE' && r.path.endsWith(`/provisionerkeys/${keyName}`)));
    await eventually(
      'the Deployment to be garbage-collected',
      async () =>
        (await apps.listNamespacedDeployment({ namespace: 'coder' })).items.every(
          (d) => d.metadata!.name !== 'provisioner-coder-provisioner',
        ),
      { timeoutMs: 60_000 },
    );
  });

  it('refuses a cross-origin redirect on the key call: the other origin receives nothing', async () => {
    const ns = await namespace('redirect');
    tokens.push((await controlPlaneWithOperatorAccess(env, ns)).token);
    const elsewhere = await startCoderApiDouble();
    try {
      env.coder.redirect('/api/v2/organizations', { to: `${elsewhere.url}/api/v2/organizations/default`, status: 307 });
      await client.create(aProvisioner('p').inNamespace(ns).manifest());
      await waitForCondition(
        ns,
        'p',
        'ProvisionerKeyReady',
        'False ProvisionerKeyFailed: Provisioner key "p" could not be created in organization "default": refusing redirect to a different origin than the coder URL',
      );
      assert.deepEqual(elsewhere.requests, [], 'the other origin received no request, and so no token');
      assert.match(readFileSync(env.operator.logFile, 'utf8'), /refusing redirect to a different origin than the coder URL/);
      assert.equal(
        (await apps.listNamespacedDeployment({ namespace: ns })).items.filter((d) => d.metadata!.name === 'provisioner-p').length,
        0,
        'no Deployment without a key',
      );
    } finally {
      // reset() also forgets the tokens and entitlements the earlier tests set up.
      env.coder.reset();
      entitle();
      for (const token of tokens) env.coder.addToken(token);
      await elsewhere.stop();
    }
  });

  it('names spec.controlPlaneRef.name on a legacy object without it, and changes nothing', async () => {
    const ns = await namespace('legacy');
    await client.create({ ...aProvisioner('old').inNamespace(ns).manifest(), spec: { controlPlaneRef: {} } } as CoderProvisioner);
    await waitForCondition(ns, 'old', 'SpecValid', 'False InvalidSpec: spec.controlPlaneRef.name: is required');
    assert.match(
      await conditionLine(ns, 'old', 'Stalled'),
      /^True InvalidSpec: SpecValid is False \(InvalidSpec\): spec\.controlPlaneRef\.name/,
    );
    assert.equal((await apps.listNamespacedDeployment({ namespace: ns })).items.length, 0);
    const events = await env.cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    assert.ok(events.items.some((e) => e.reason === 'InvalidSpec' && e.note?.includes('spec.controlPlaneRef.name')));
  });

  // Last, so that the audit log holds the whole suite.
  it('used every verb its declared permissions grant, as the audit log of this suite shows', async () => {
    const operatorUser = 'system:serviceaccount:coder-system:coder-k8s';
    const used = usedGrants(await env.cp.auditEvents({ username: operatorUser, stages: ['ResponseStarted', 'ResponseComplete'] }));
    const unused = unusedGrants(grantsOf(permissions), used, notExercisedHere);
    assert.deepEqual(unused, [], `granted but never used: ${unused.join(', ')}`);
  });

  it('never writes a provisioner key or token to its log, status or Events', async () => {
    const log = readFileSync(env.operator.logFile, 'utf8');
    const statuses = JSON.stringify((await client.list()).items.map((o) => o.status));
    const events = JSON.stringify((await env.cp.adminConfig().makeApiClient(EventsV1Api).listEventForAllNamespaces()).items);
    const deployments = JSON.stringify((await apps.listDeploymentForAllNamespaces()).items);
    assert.ok(secretsToFind.length >= 3);
    for (const secret of secretsToFind) {
      for (const [where, text] of [
        ['log', log],
        ['status', statuses],
        ['events', events],
        ['deployments', deployments],
      ] as const) {
        assert.ok(!text.includes(secret), `${where} contains a secret value`);
      }
    }
  });
});
