// The test control plane is real: RBAC is enforced, controllers run, kwok runs pods, audit is recorded.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  VersionApi,
  type V1Deployment,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { kubernetesVersion } from '../harness/binaries.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { startPostgres } from '../harness/postgres.ts';
import { eventually } from '../harness/wait.ts';

const run = promisify(execFile);

function client(kubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

function statusCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

describe('test control plane with controllers and kwok', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;

  before(async () => {
    cp = await startControlPlane({ kwok: true });
    core = cp.adminConfig().makeApiClient(CoreV1Api);
  });
  after(() => cp?.stop());

  it('lets the admin create a namespace, a CRD and an object of it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'crd-test' } } });
    const ext = cp.adminConfig().makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({
      body: {
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
              },
            },
          ],
        },
      },
    });
    await eventually('the Widget CRD to be Established', async () => {
      const crd = await ext.readCustomResourceDefinition({ name: 'widgets.example.com' });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
    const custom = cp.adminConfig().makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'crd-test',
      plural: 'widgets',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } },
    });
    const widget = (await custom.getNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'crd-test',
      plural: 'widgets',
      name: 'w1',
    })) as { spec: { size: number } };
    assert.equal(widget.spec.size, 3);
  });

  it('denies a ServiceAccount without RBAC and allows it once bound to a Role', async () => {
    const kubeconfig = await cp.operatorKubeconfig('rbac-test', 'operator');
    const asOperator = client(kubeconfig).makeApiClient(CoreV1Api);
    await assert.rejects(asOperator.listNamespacedConfigMap({ namespace: 'rbac-test' }), (err) => statusCode(err) === 403);

    const rbac = cp.adminConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'rbac-test',
      body: { metadata: { name: 'read-configmaps' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'rbac-test',
      body: {
        metadata: { name: 'operator-reads-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'rbac-test' }],
      },
    });
    const list = await eventually('the RoleBinding to take effect', () => asOperator.listNamespacedConfigMap({ namespace: 'rbac-test' }));
    assert.ok(Array.isArray(list.items));
    // The Role grants list on configmaps only.
    await assert.rejects(asOperator.listNamespacedSecret({ namespace: 'rbac-test' }), (err) => statusCode(err) === 403);
  });

  it('runs a Deployment to Available and garbage-collects it when its owner is deleted', async () => {
    await core.createNamespace({ body: { metadata: { name: 'gc-test' } } });
    const owner = await core.createNamespacedConfigMap({ namespace: 'gc-test', body: { metadata: { name: 'owner' } } });
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const labels = { app: 'web' };
    const deployment: V1Deployment = {
      metadata: {
        name: 'web',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: true }],
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'example.invalid/web:1' }] } },
      },
    };
    await apps.createNamespacedDeployment({ namespace: 'gc-test', body: deployment });
    const available = await eventually(
      'Deployment gc-test/web to become Available with 2 ready replicas',
      async () => {
        const d = await apps.readNamespacedDeployment({ namespace: 'gc-test', name: 'web' });
        const ok = d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
        return ok && d.status?.readyReplicas === 2 ? d : undefined;
      },
      { timeoutMs: 90_000 },
    );
    assert.equal(available.status?.availableReplicas, 2);
    const pods = await core.listNamespacedPod({ namespace: 'gc-test', labelSelector: 'app=web' });
    assert.equal(pods.items.length, 2);
    assert.ok(pods.items.every((p) => p.status?.phase === 'Running' && p.spec?.nodeName === 'kwok-node-0'));

    await core.deleteNamespacedConfigMap({ namespace: 'gc-test', name: 'owner' });
    await eventually(
      'the Deployment, its ReplicaSet and Pods to be garbage-collected',
      async () => {
        const [deployments, replicaSets, remaining] = await Promise.all([
          apps.listNamespacedDeployment({ namespace: 'gc-test' }),
          apps.listNamespacedReplicaSet({ namespace: 'gc-test' }),
          core.listNamespacedPod({ namespace: 'gc-test' }),
        ]);
        return deployments.items.length + replicaSets.items.length + remaining.items.length === 0;
      },
      { timeoutMs: 90_000 },
    );
  });

  it('records the requests of a given user in the audit log', async () => {
    const since = new Date(Date.now() - 1_000);
    const kubeconfig = await cp.userKubeconfig('audit-probe');
    const asUser = client(kubeconfig).makeApiClient(CoreV1Api);
    await assert.rejects(asUser.readNamespace({ name: 'default' }), (err) => statusCode(err) === 403);
    await assert.rejects(asUser.createNamespace({ body: { metadata: { name: 'not-allowed' } } }), (err) => statusCode(err) === 403);
    const events = await eventually('two audit records of user audit-probe', async () => {
      const found = await cp.auditEvents({ username: 'audit-probe', since });
      return found.length >= 2 ? found : undefined;
    });
    assert.deepEqual(events.map((e) => `${e.verb} ${e.objectRef?.resource} ${e.responseStatus?.code}`).sort(), [
      'create namespaces 403',
      'get namespaces 403',
    ]);
    const writes = await cp.auditEvents({ username: 'audit-probe', since, verbs: ['create'] });
    assert.equal(writes.length, 1);
  });

  it('keeps data and serves again after kube-apiserver restarts', async () => {
    await core.createNamespace({ body: { metadata: { name: 'restart-test' } } });
    await cp.restartApiServer();
    const ns = await core.readNamespace({ name: 'restart-test' });
    assert.equal(ns.metadata?.name, 'restart-test');
  });
});

describe('test control plane lifecycle', () => {
  it('starts with only etcd and kube-apiserver and leaves no process behind after stop', async () => {
    const cp = await startControlPlane();
    try {
      const version = await cp.adminConfig().makeApiClient(VersionApi).getCode();
      assert.equal(version.gitVersion, kubernetesVersion);
    } finally {
      await cp.stop();
    }
    const left = await run('pgrep', ['-f', cp.dir]).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    assert.equal(left, '', `processes still running for ${cp.dir}`);
  });
});

describe('test PostgreSQL', () => {
  it('accepts a connection and a query on a fresh database', async () => {
    const postgres = await startPostgres();
    try {
      const url = await postgres.createDatabase('harness');
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        await db.query('CREATE TABLE t (n int)');
        await db.query('INSERT INTO t VALUES (1), (2)');
        const { rows } = await db.query<{ sum: string }>('SELECT sum(n) FROM t');
        assert.equal(rows[0]?.sum, '3');
      } finally {
        await db.end();
      }
      const unauthenticated = new pg.Client({ connectionString: url.replace(postgres.password, 'wrong') });
      await assert.rejects(unauthenticated.connect(), /password authentication failed/);
    } finally {
      await postgres.stop();
    }
  });
});
