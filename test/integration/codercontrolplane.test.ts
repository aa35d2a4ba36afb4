// CoderControlPlane end to end: the operator as its own process under its generated RBAC, a real
// control plane with controllers and kwok, a real PostgreSQL with Coder's tables, and the Coder API double.
import { AppsV1Api, CoreV1Api, EventsV1Api, RbacAuthorizationV1Api, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { ensureOperatorToken, operatorTokenName } from '../../src/coder/operator-access/index.ts';
import { apiStatus } from '../harness/api-status.ts';
import { openApiStream } from '../harness/api-stream.ts';
import { fakeLicenseJwt, startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { createCoderDatabase, query } from '../harness/coder-database.ts';
import type { ControlPlane } from '../harness/control-plane.ts';
import { gatewayApiCrd } from '../harness/binaries.ts';
import { kubectl, kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';
import { operatorUser } from '../harness/operator-writes.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import type { Postgres } from '../harness/postgres.ts';
import { grantsOf, unusedGrants, usedGrants } from '../harness/rbac-usage.ts';
import { eventually } from '../harness/wait.ts';
import { expectRefusedChild } from '../harness/refused-child.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { permissions as controlPlanePermissions } from '../../src/controllers/codercontrolplane/permissions.ts';
import { permissions as runtimePermissions } from '../../src/runtime/permissions.ts';
import { grantsNotExercisedBySuite } from './rbac-allowed-unused.ts';

const seedJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;

describe('CoderControlPlane controller', () => {
  let cp: ControlPlane;
  let postgres: Postgres;
  let coder: CoderApiDouble;
  let operator: RunningOperator;
  let client: CoderControlPlaneClient;
  let core: CoreV1Api;
  let admin: string;
  const secretsToFind: string[] = [];

  let env: OperatorEnvironment | undefined;

  before(async () => {
    env = await operatorEnvironment();
    ({ cp, postgres, coder, operator, admin } = env);
    core = cp.adminConfig().makeApiClient(CoreV1Api);
    client = coderControlPlaneClient(cp.adminConfig());
    secretsToFind.push(postgres.password);
  });
  after(() => env?.stop());

  const namespace = async (name: string) => {
    await kubectlOk(admin, ['create', 'namespace', name]);
    return name;
  };
  const dbSecret = (ns: string, value: string, name = 'coder-db-app', key = 'uri'): V1Secret => ({
    metadata: { name, namespace: ns },
    stringData: { [key]: value },
  });
  /** A token Secret of control plane "coder" as the Go original left it: its owner reference, none of the operator's marks. */
  const unmarkedTokenSecret = (uid: string, token: string): V1Secret => ({
    metadata: {
      name: 'coder-operator-token',
      ownerReferences: [{ apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'coder', uid, controller: true }],
    },
    stringData: { token },
  });
  const conditionLine = async (ns: string, name: string, type: string) =>
    (await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', name, '-o', seedJsonpath(type)])).trim();
  const aControlPlaneIn = (ns: string, name: string, spec: CoderControlPlane['spec'] = {}): CoderControlPlane =>
    aControlPlane(name).inNamespace(ns).withSpec(spec).manifest();
  /** Control plane "coder" of ns once operator access is ready. */
  const operatorAccessReady = (ns: string) =>
    eventually(
      'operator access ready',
      async () => {
        const obj = await client.get(ns, 'coder');
        return obj.status?.operatorAccessReady ? obj : undefined;
      },
      { timeoutMs: 60_000 },
    );

  it('runs the deploy guide walkthrough: the sample becomes a Deployment and Service, and Ready', async () => {
    await namespace('coder');
    await kubectlOk(admin, ['apply', '-f', 'config/samples/coder_v1alpha1_codercontrolplane.yaml']);
    const listed = await kubectlOk(admin, ['get', 'codercontrolplanes', '-A']);
    assert.match(listed, /^coder\s+coder\s/m);
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const deployment = await eventually('Deployment coder/coder', () =>
      apps.readNamespacedDeployment({ namespace: 'coder', name: 'coder' }),
    );
    const container = deployment.spec!.template.spec!.containers[0]!;
    assert.equal(container.name, 'coder');
    assert.deepEqual(
      container.env!.slice(0, 3).map((e) => e.name),
      ['KUBE_POD_IP', 'CODER_DERP_SERVER_RELAY_URL', 'CODER_ACCESS_URL'],
    );
    assert.ok(deployment.metadata!.ownerReferences!.some((r) => r.kind === 'CoderControlPlane' && r.controller));
    const service = await eventually('Service coder/coder', () => core.readNamespacedService({ namespace: 'coder', name: 'coder' }));
    assert.deepEqual(
      service.spec!.ports!.map((p) => [p.name, p.port, p.targetPort]),
      [['http', 80, 8080]],
    );
    await eventually(
      'phase Ready with a ready pod (kwok)',
      async () => {
        const obj = await client.get('coder', 'coder');
        return (
          obj.status?.phase === 'Ready' && obj.status.readyReplicas === 1 && obj.status.url === 'http://coder.coder.svc.cluster.local:80'
        );
      },
      { timeoutMs: 90_000 },
    );
    // What Kubernetes tooling reads: kubectl wait, the printer column, and kstatus's observedGeneration.
    await kubectlOk(admin, ['-n', 'coder', 'wait', '--for=condition=Ready', 'codercontrolplane/coder', '--timeout=60s']);
    assert.match(
      await kubectlOk(admin, ['-n', 'coder', 'get', 'codercontrolplane', 'coder']),
      /^NAME\s+PHASE\s+URL\s+READY\s+REPLICAS\s+AGE\ncoder\s+Ready\s+\S+\s+True\s+1\s/,
    );
    const ready = await client.get('coder', 'coder');
    assert.equal(ready.status?.observedGeneration, ready.metadata.generation);
    assert.equal(
      await conditionLine('coder', 'coder', 'Ready'),
      'True Available: Coder serves, and everything the spec asks for is in place.',
    );
    assert.equal(await conditionLine('coder', 'coder', 'Stalled'), '');
  });

  it("holds a new control plane's first status back up to 2 s for its Deployment, so that one write often says Ready", async () => {
    const ns = await namespace('first-status');
    const from = new Date(Date.now() - 1_000);
    await client.create(aControlPlaneIn(ns, 'coder', { operatorAccess: { disabled: true } }));
    await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=Ready', 'codercontrolplane/coder', '--timeout=90s']);
    const writes = (await cp.auditEvents({ username: operatorUser, since: from, verbs: ['patch'] })).filter(
      (e) => e.objectRef?.namespace === ns && e.objectRef.name === 'coder',
    );
    const at = (e: { requestReceivedTimestamp: string }) => Date.parse(e.requestReceivedTimestamp);
    const deploymentApply = writes.find((e) => e.objectRef?.resource === 'deployments');
    const statusWrites = writes.filter((e) => e.objectRef?.resource === 'codercontrolplanes' && e.objectRef.subresource === 'status');
    assert.ok(deploymentApply && statusWrites.length >= 1, 'the Deployment was applied and a status written');
    if (statusWrites.length > 1) {
      // The pod was not ready within the hold: the first status (DeploymentReady False) came no sooner than 2 s later.
      assert.ok(
        at(statusWrites[0]!) - at(deploymentApply) >= 1_900,
        `first status ${at(statusWrites[0]!) - at(deploymentApply)} ms after the Deployment`,
      );
    }
  });

  it('keeps the deploy guide rollout restart annotation across reconciles', async () => {
    await kubectlOk(admin, ['-n', 'coder', 'rollout', 'restart', 'deployment/coder']);
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const restartedAt = (await apps.readNamespacedDeployment({ namespace: 'coder', name: 'coder' })).spec!.template.metadata!.annotations![
      'kubectl.kubernetes.io/restartedAt'
    ];
    assert.ok(restartedAt);
    await client.mergePatch('coder', 'coder', { spec: { extraArgs: ['--verbose'] } });
    await eventually('the new argument applied', async () =>
      (await apps.readNamespacedDeployment({ namespace: 'coder', name: 'coder' })).spec!.template.spec!.containers[0]!.args!.includes(
        '--verbose',
      ),
    );
    const after = await apps.readNamespacedDeployment({ namespace: 'coder', name: 'coder' });
    assert.equal(after.spec!.template.metadata!.annotations!['kubectl.kubernetes.io/restartedAt'], restartedAt);
    await kubectlOk(admin, ['-n', 'coder', 'rollout', 'status', 'deployment/coder', '--timeout=90s']);
  });

  it('reports each child the API server refuses on a Ready control plane, and becomes Ready again once the spec is fixed', async () => {
    const refused = (refusedSpec: Record<string, unknown>, message: RegExp, repairSpec: Record<string, unknown>) =>
      expectRefusedChild(admin, { kind: 'codercontrolplane', namespace: 'coder', name: 'coder', refusedSpec, message, repairSpec });
    await refused(
      { replicas: -1 },
      /\(field spec\.replicas\): Deployment\.apps "coder" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/,
      { replicas: 1 },
    );
    await refused({ service: { port: 70000 } }, /Service "coder" is invalid: spec\.ports\[0\]\.port: Invalid value: 70000/, {
      service: { port: 80 },
    });
    await refused({ service: { type: 'Bogus' } }, /Service "coder" is invalid: spec\.type: Unsupported value: "Bogus"/, {
      service: { type: 'ClusterIP' },
    });
  });

  it('reports a refused child on a new control plane instead of leaving its status empty', async () => {
    const ns = await namespace('refused-new');
    await client.create(aControlPlaneIn(ns, 'coder', { operatorAccess: { disabled: true }, replicas: -1 }));
    await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=Stalled', 'codercontrolplane/coder', '--timeout=60s']);
    assert.match(
      await conditionLine(ns, 'coder', 'SpecValid'),
      /^False ChildRefused: The API server refused a child object \(field spec\.replicas\)/,
    );
    const obj = await client.get(ns, 'coder');
    assert.equal(obj.status?.observedGeneration, obj.metadata.generation);
  });

  it('exposes through an Ingress, and says so when the Gateway API is not installed', async () => {
    const ns = await namespace('exposed');
    await client.create(
      aControlPlaneIn(ns, 'ingress', { operatorAccess: { disabled: true }, expose: { ingress: { host: 'coder.example.com' } } }),
    );
    await client.create(
      aControlPlaneIn(ns, 'gateway', {
        operatorAccess: { disabled: true },
        expose: { gateway: { host: 'coder.example.com', parentRefs: [{ name: 'gw' }] } },
      }),
    );
    await eventually('Exposed True IngressApplied', async () =>
      (await conditionLine(ns, 'ingress', 'Exposed')).startsWith('True IngressApplied'),
    );
    const rules = await kubectlOk(admin, [
      '-n',
      ns,
      'get',
      'ingress',
      'ingress',
      '-o',
      'jsonpath={.spec.rules[0].host} {.spec.rules[0].http.paths[0].backend.service.name}',
    ]);
    assert.equal(rules, 'coder.example.com ingress');
    await eventually('Exposed False GatewayAPINotInstalled', async () =>
      (await conditionLine(ns, 'gateway', 'Exposed')).startsWith('False GatewayAPINotInstalled: spec.expose.gateway is set'),
    );
    // Without spec.expose the Ingress it made goes, and so does the condition.
    await client.mergePatch(ns, 'ingress', { spec: { expose: null } });
    await eventually('the Ingress to be deleted once spec.expose is removed', async () =>
      kubectl(admin, ['-n', ns, 'get', 'ingress', 'ingress']).then((r) => r.code !== 0 && /NotFound/.test(r.stderr)),
    );
    assert.equal(await conditionLine(ns, 'ingress', 'Exposed'), '');
  });

  // After the test above, which needs the Gateway API absent: from here on its CRDs are installed.
  it('watches HTTPRoutes once the Gateway API is installed after the operator started: a deleted or edited route is put back at once', async () => {
    const ns = await namespace('routed');
    await kubectlOk(admin, ['apply', '--server-side', '-f', gatewayApiCrd('httproutes')]);
    await waitForCrdsEstablished(admin, ['httproutes.gateway.networking.k8s.io']);
    // The operator's HTTPRoute cache looks for the kind again with a backoff, and says when it watches it.
    await eventually(
      'the operator to watch HTTPRoutes',
      async () =>
        readFileSync(operator.logFile, 'utf8')
          .split('\n')
          .some((l) => l.includes('"resource":"httproutes"') && l.includes('now served')),
      { timeoutMs: 90_000 },
    );
    await client.create(
      aControlPlaneIn(ns, 'coder', {
        operatorAccess: { disabled: true },
        expose: { gateway: { host: 'coder.example.com', parentRefs: [{ name: 'gw' }] } },
      }),
    );
    await eventually('Exposed True HTTPRouteApplied', async () =>
      (await conditionLine(ns, 'coder', 'Exposed')).startsWith('True HTTPRouteApplied'),
    );
    const route = (field: string) => kubectlOk(admin, ['-n', ns, 'get', 'httproute', 'coder', '-o', `jsonpath=${field}`]);
    const firstUid = await route('{.metadata.uid}');
    assert.equal(await route('{.spec.hostnames[0]}'), 'coder.example.com');

    await kubectlOk(admin, ['-n', ns, 'delete', 'httproute', 'coder']);
    await eventually('the deleted HTTPRoute made again', async () => {
      const now = await kubectl(admin, ['-n', ns, 'get', 'httproute', 'coder', '-o', 'jsonpath={.metadata.uid}']);
      return now.code === 0 && now.stdout !== firstUid;
    });
    await kubectlOk(admin, [
      '-n',
      ns,
      'patch',
      'httproute',
      'coder',
      '--type=merge',
      '-p',
      '{"spec":{"hostnames":["elsewhere.example.com"]}}',
    ]);
    await eventually('the edited HTTPRoute put back', async () => (await route('{.spec.hostnames[0]}')) === 'coder.example.com');

    await client.mergePatch(ns, 'coder', { spec: { expose: null } });
    await eventually('the HTTPRoute deleted once spec.expose is removed', async () =>
      kubectl(admin, ['-n', ns, 'get', 'httproute', 'coder']).then((r) => r.code !== 0 && /NotFound/.test(r.stderr)),
    );
  });

  it('reports every row of the deploy guide DatabaseSecretResolved table, read with its jsonpath; checks an updated Secret again without restarting pods; drops the condition with spec.database', async () => {
    const ns = await namespace('db-table');
    const url = postgres.url('coder');
    const rows: [string, V1Secret | undefined, string][] = [
      [
        'resolved',
        dbSecret(ns, url, 'resolved'),
        'True Resolved: Secret "resolved" key "uri" contains a PostgreSQL connection URL. This does not check that the database is reachable.',
      ],
      ['missing', undefined, 'False SecretNotFound: Secret "missing" (key "uri") was not found in namespace "db-table".'],
      ['nokey', dbSecret(ns, url, 'nokey', 'other'), 'False KeyNotFound: Secret "nokey" does not contain key "uri".'],
      ['blank', dbSecret(ns, '   ', 'blank'), 'False EmptyValue: Secret "blank" key "uri" is empty.'],
      [
        'upper',
        dbSecret(ns, url.replace('postgresql://', 'Postgres://'), 'upper'),
        'False InvalidURL: Secret "upper" key "uri" is not a valid postgres:// or postgresql:// URL.',
      ],
    ];
    for (const [name, secret] of rows) {
      if (secret) await core.createNamespacedSecret({ namespace: ns, body: secret });
      await client.create(
        aControlPlaneIn(ns, name, { operatorAccess: { disabled: true }, database: { connectionSecretRef: { name, key: 'uri' } } }),
      );
    }
    for (const [name, , expected] of rows) {
      await eventually(`${name}: ${expected}`, async () => (await conditionLine(ns, name, 'DatabaseSecretResolved')) === expected);
    }
    // Only the user can fix a missing Secret: Ready names it, and Stalled (kstatus: Failed) says so.
    const blocked =
      'DatabaseSecretNotResolved: DatabaseSecretResolved is False (SecretNotFound): Secret "missing" (key "uri") was not found in namespace "db-table".';
    assert.equal(await conditionLine(ns, 'missing', 'Ready'), `False ${blocked}`);
    assert.equal(await conditionLine(ns, 'missing', 'Stalled'), `True ${blocked}`);
    await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=Stalled', 'codercontrolplane/missing', '--timeout=30s']);
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const deployment = await apps.readNamespacedDeployment({ namespace: ns, name: 'resolved' });
    const env = deployment.spec!.template.spec!.containers[0]!.env!.find((e) => e.name === 'CODER_PG_CONNECTION_URL')!;
    assert.deepEqual(JSON.parse(JSON.stringify(env)), {
      name: 'CODER_PG_CONNECTION_URL',
      valueFrom: { secretKeyRef: { name: 'resolved', key: 'uri' } },
    });

    // An update of the Secret is checked again, and does not restart the pods: the pod template stays as it was.
    const unchanged = await apps.readNamespacedDeployment({ namespace: ns, name: 'nokey' });
    await core.replaceNamespacedSecret({ namespace: ns, name: 'nokey', body: dbSecret(ns, url, 'nokey') });
    await eventually('nokey: Resolved once the key is added', async () =>
      (await conditionLine(ns, 'nokey', 'DatabaseSecretResolved')).startsWith('True Resolved: Secret "nokey" key "uri"'),
    );
    const afterUpdate = await apps.readNamespacedDeployment({ namespace: ns, name: 'nokey' });
    assert.equal(afterUpdate.metadata!.generation, unchanged.metadata!.generation, 'the Deployment spec did not change');
    assert.deepEqual(afterUpdate.spec!.template, unchanged.spec!.template);

    // Without spec.database the condition goes.
    await client.mergePatch(ns, 'blank', { spec: { database: null } });
    await eventually(
      'blank: no DatabaseSecretResolved once spec.database is removed',
      async () => (await conditionLine(ns, 'blank', 'DatabaseSecretResolved')) === '',
    );
  });

  it('the API server rejects spec.extraEnv CODER_PG_CONNECTION_URL together with spec.database', async () => {
    const manifest = JSON.stringify(
      aControlPlaneIn('coder', 'conflict', {
        database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } },
        extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'postgres://x@y/z' }],
      }),
    );
    const result = await kubectl(admin, ['apply', '-f', '-'], manifest);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /spec\.extraEnv must not set CODER_PG_CONNECTION_URL when spec\.database\.connectionSecretRef is set/);
  });

  it('waits for a Secret created after the control plane, bootstraps operator access, and follows a rotated URL', async () => {
    const ns = await namespace('db-late');
    const first = await createCoderDatabase(postgres);
    await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
    await eventually('SecretNotFound', async () =>
      (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')).startsWith('False SecretNotFound'),
    );
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, first) });
    await eventually('Resolved after the Secret appears, without an operator restart', async () =>
      (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')).startsWith('True Resolved'),
    );
    const ready = await operatorAccessReady(ns);
    assert.deepEqual(ready.status!.operatorTokenSecretRef, { name: 'coder-operator-token', key: 'token' });
    const tokenSecret = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    const token = Buffer.from(tokenSecret.data!.token!, 'base64').toString();
    assert.match(token, /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);
    assert.ok(tokenSecret.metadata!.ownerReferences!.some((r) => r.uid === ready.metadata.uid && r.controller));
    assert.equal(tokenSecret.metadata!.labels!['coder.com/credential'], 'true');
    const rows = await query(
      first,
      "SELECT u.username, k.token_name FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.login_type = 'token'",
    );
    assert.deepEqual(
      rows.map((r) => r.username),
      ['coder-k8s-operator'],
    );

    // A second reconcile reuses the token: force one with a harmless spec change.
    await client.mergePatch(ns, 'coder', { spec: { replicas: 1 } });
    await new Promise((r) => setTimeout(r, 3_000));
    const again = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    assert.equal(again.metadata!.resourceVersion, tokenSecret.metadata!.resourceVersion, 'token Secret unchanged');

    // Rotation: the Secret now names another database; the next reconcile bootstraps there.
    const second = await createCoderDatabase(postgres);
    await core.replaceNamespacedSecret({ namespace: ns, name: 'coder-db-app', body: dbSecret(ns, second) });
    await eventually(
      'the operator user in the new database',
      async () => (await query(second, "SELECT 1 FROM users WHERE username = 'coder-k8s-operator'")).length === 1,
      { timeoutMs: 60_000 },
    );
    secretsToFind.push(token);

    await core.deleteNamespacedSecret({ namespace: ns, name: 'coder-db-app' });
    await eventually('SecretNotFound again once the Secret is deleted', async () =>
      (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')).startsWith('False SecretNotFound'),
    );
  });

  it('bootstraps operator access from a literal CODER_PG_CONNECTION_URL in spec.extraEnv when spec.database is unset', async () => {
    const ns = await namespace('db-extraenv-literal');
    const url = await createCoderDatabase(postgres);
    await client.create(aControlPlaneIn(ns, 'coder', { extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: url }] }));
    const ready = await operatorAccessReady(ns);
    assert.deepEqual(ready.status!.operatorTokenSecretRef, { name: 'coder-operator-token', key: 'token' });
    assert.equal(await conditionLine(ns, 'coder', 'DatabaseSecretResolved'), '', 'no DatabaseSecretResolved without spec.database');
    const rows = await query(url, "SELECT u.username FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.login_type = 'token'");
    assert.deepEqual(
      rows.map((r) => r.username),
      ['coder-k8s-operator'],
    );
    // The Deployment carries the literal URL as the user wrote it, harness password included: delete it (garbage
    // collection takes up to a minute here), so that the suite's check that the operator puts no URL into a
    // Deployment still holds.
    await kubectlOk(admin, ['-n', ns, 'delete', 'codercontrolplane', 'coder']);
    await kubectlOk(admin, ['-n', ns, 'delete', 'deployment', 'coder', '--ignore-not-found']);
  });

  it('follows an envFrom ConfigMap created, changed and deleted after the control plane, without waiting for a requeue', async () => {
    const ns = await namespace('envfrom-configmap');
    await client.create(
      aControlPlaneIn(ns, 'coder', { operatorAccess: { disabled: true }, envFrom: [{ configMapRef: { name: 'coder-env' } }] }),
    );
    const envNames = async () =>
      (await kubectlOk(admin, ['-n', ns, 'get', 'deployment', 'coder', '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}']))
        .trim()
        .split(/\s+/);
    const defaultAccessUrl = async (wanted: boolean) => (await envNames()).includes('CODER_ACCESS_URL') === wanted;
    await eventually('the default CODER_ACCESS_URL while the ConfigMap does not exist', () => defaultAccessUrl(true));
    await kubectlOk(admin, ['-n', ns, 'create', 'configmap', 'coder-env', '--from-literal=CODER_ACCESS_URL=https://coder.example.com']);
    await eventually('no default CODER_ACCESS_URL once the ConfigMap defines it', () => defaultAccessUrl(false));
    await kubectlOk(admin, [
      '-n',
      ns,
      'patch',
      'configmap',
      'coder-env',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/data/CODER_ACCESS_URL"}]',
    ]);
    await eventually('the default CODER_ACCESS_URL again once the ConfigMap no longer defines it', () => defaultAccessUrl(true));
    await kubectlOk(admin, [
      '-n',
      ns,
      'patch',
      'configmap',
      'coder-env',
      '--type=merge',
      '-p',
      '{"data":{"CODER_ACCESS_URL":"https://coder.example.com"}}',
    ]);
    await eventually('no default CODER_ACCESS_URL once the changed ConfigMap defines it', () => defaultAccessUrl(false));
    await kubectlOk(admin, ['-n', ns, 'delete', 'configmap', 'coder-env']);
    await eventually('the default CODER_ACCESS_URL again once the ConfigMap is deleted', () => defaultAccessUrl(true));
  });

  it('names the token Secret it just created as its own in the same status that reports operator access ready', async () => {
    const ns = await namespace('token-created');
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, await createCoderDatabase(postgres)) });
    // Every version of the control plane, as a watch delivers them: none may report access ready while
    // saying that the Secret holding that access does not exist.
    const watch = await openApiStream(cp, `/apis/coder.com/v1alpha1/namespaces/${ns}/codercontrolplanes?watch=true`);
    try {
      await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
      const versions = () =>
        watch
          .text()
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { object: CoderControlPlane }).object);
      const ready = await eventually('a version with operator access ready', async () => {
        const found = versions().filter((obj) => obj.status?.operatorAccessReady);
        return found.length ? found : undefined;
      });
      const owned = ready.map((obj) => obj.status?.conditions?.find((c) => c.type === 'OperatorTokenSecretOwned')?.message);
      assert.ok(owned.length > 0);
      for (const message of owned) assert.equal(message, `Secret "${ns}/coder-operator-token" is controlled by this control plane.`);
    } finally {
      watch.close();
    }
  });

  it('never touches a foreign token Secret, says so, and takes over once it is deleted', async () => {
    const ns = await namespace('foreign-token');
    const url = await createCoderDatabase(postgres);
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    const foreign = await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'coder-operator-token' }, stringData: { token: 'someone-elses' } },
    });
    await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
    await eventually('TokenSecretNotOwned', async () =>
      (await conditionLine(ns, 'coder', 'OperatorTokenSecretOwned')).startsWith(
        'False TokenSecretNotOwned: Secret "foreign-token/coder-operator-token"',
      ),
    );
    const obj = await client.get(ns, 'coder');
    assert.equal(obj.status?.operatorAccessReady, false);
    assert.equal(obj.status?.operatorTokenSecretRef, undefined);
    const untouched = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    assert.equal(untouched.metadata!.resourceVersion, foreign.metadata!.resourceVersion);
    assert.deepEqual(untouched.data, foreign.data);
    assert.equal((await query(url, 'SELECT 1 FROM api_keys')).length, 0, 'no token created in Coder');

    // The deploy guide's upgrade check names exactly this Secret.
    const check = await runSeedUpgradeCheck(admin);
    assert.match(check, /^not owned: foreign-token\/coder-operator-token$/m);
    assert.doesNotMatch(check, /db-late/);

    await core.deleteNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    const deletedAt = Date.now();
    await eventually('a new owned Secret and token', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 45_000,
    });
    assert.ok(Date.now() - deletedAt <= 35_000, `within the 30 s recheck, took ${Date.now() - deletedAt} ms`);
  });

  it('never reads a file a database URL names: refuses the parameter by name in OperatorAccessReady', async () => {
    const ns = await namespace('db-url-file');
    const dir = mkdtempSync(join(tmpdir(), 'coder-k8s-fifo-'));
    const fifo = join(dir, 'ca.pem');
    execFileSync('mkfifo', [fifo]);
    try {
      // The legacy extraEnv literal needs no Secret: anyone who may create a control plane can set it.
      const url = `postgres://coder:pw-file-probe@127.0.0.1:1/coder?sslmode=verify-full&sslrootcert=${encodeURIComponent(fifo)}`;
      await client.create(aControlPlaneIn(ns, 'fifo', { extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: url }] }));
      await client.create(
        aControlPlaneIn(ns, 'zero', {
          extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'postgres://coder:pw-file-probe@127.0.0.1:1/coder?sslkey=/dev/zero' }],
        }),
      );
      for (const [name, parameter] of [
        ['fifo', 'sslrootcert'],
        ['zero', 'sslkey'],
      ]) {
        const line = await eventually(`OperatorAccessReady naming ${parameter}`, async () => {
          const found = await conditionLine(ns, name!, 'OperatorAccessReady');
          return found.startsWith('False InvalidDatabaseURL') ? found : undefined;
        });
        assert.match(line, new RegExp(`the database URL sets the parameter ${parameter}, which names a file`));
        assert.ok(!line.includes(fifo) && !line.includes('/dev/zero') && !line.includes('pw-file-probe'), line);
      }
      // The operator is still responsive: a later object is reconciled too.
      await client.create(aControlPlaneIn(ns, 'after', {}));
      await eventually('the next control plane reconciled', async () =>
        (await conditionLine(ns, 'after', 'OperatorAccessReady')).startsWith('False DatabaseURLUnavailable'),
      );

      // One Warning per problem, not one per retry: two more reconciles meet the same problem.
      for (const replicas of [2, 1]) {
        const { metadata } = await client.mergePatch(ns, 'zero', { spec: { replicas } });
        await eventually(`the reconcile of generation ${metadata.generation}`, async () =>
          (await client.get(ns, 'zero')).status?.conditions?.some(
            (c) => c.type === 'OperatorAccessReady' && c.observedGeneration === metadata.generation,
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 2_000));
      const warnings = (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items
        .filter((e) => e.type === 'Warning')
        .map((e) => [e.regarding?.name, e.reason, e.series?.count ?? 1]);
      assert.deepEqual(warnings.filter(([name]) => name !== 'fifo').sort(), [
        ['after', 'DatabaseURLUnavailable', 1],
        ['zero', 'InvalidDatabaseURL', 1],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a coder-k8s-operator user it did not create, naming the user in OperatorAccessReady', async () => {
    const ns = await namespace('foreign-user');
    const url = await createCoderDatabase(postgres);
    await query(
      url,
      `INSERT INTO users (id, email, username, name, hashed_password, created_at, updated_at, rbac_roles, login_type, status)
       VALUES (gen_random_uuid(), 'self-signup@example.com', 'coder-k8s-operator', 'x', 'h', now(), now(), '{}', 'password', 'active')`,
    );
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
    const line = await eventually('UserNotCreatedByOperator', async () => {
      const found = await conditionLine(ns, 'coder', 'OperatorAccessReady');
      return found.startsWith('False UserNotCreatedByOperator') ? found : undefined;
    });
    assert.match(line, /a Coder user named coder-k8s-operator exists that the operator did not create/);
    assert.equal((await client.get(ns, 'coder')).status?.operatorAccessReady, false);
    assert.deepEqual(await query(url, "SELECT rbac_roles, is_system FROM users WHERE username = 'coder-k8s-operator'"), [
      { rbac_roles: [], is_system: false },
    ]);
    assert.equal((await query(url, 'SELECT 1 FROM api_keys')).length, 0, 'no token for that user');
    await assert.rejects(
      core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' }),
      (err) => apiStatus(err).code === 404,
      'no token Secret is created: reading it answers 404',
    );
  });

  it('leaves no live token in Coder when the token Secret cannot be created', async () => {
    const ns = await namespace('secret-refused');
    const url = await createCoderDatabase(postgres);
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    const policy = `refuse-token-secret-${ns}`;
    const policyObjects = [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: policy },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
          validations: [
            { expression: "object.metadata.name != 'coder-operator-token'", message: 'operator token Secrets are refused here' },
          ],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: policy },
        spec: {
          policyName: policy,
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
        },
      },
    ];
    await kubectlOk(admin, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: policyObjects }));
    try {
      await eventually('the policy to refuse a token Secret', async () => {
        const refused = await core
          .createNamespacedSecret({
            namespace: ns,
            body: { metadata: { name: 'coder-operator-token' }, stringData: { token: 'x' } },
            dryRun: 'All',
          })
          .then(
            () => false,
            () => true,
          );
        return refused;
      });
      await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
      const line = await eventually(
        'TokenSecretWriteFailed',
        async () => {
          const found = await conditionLine(ns, 'coder', 'OperatorAccessReady');
          return found.startsWith('False TokenSecretWriteFailed') ? found : undefined;
        },
        { timeoutMs: 60_000 },
      );
      assert.match(
        line,
        /Secret "secret-refused\/coder-operator-token" failed, so the new token was not kept.*operator token Secrets are refused here/,
      );
      assert.deepEqual(await query(url, 'SELECT id FROM api_keys'), [], 'no live token row in Coder');
    } finally {
      await kubectlOk(admin, ['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', policy]);
    }
    await eventually(
      'operator access once the Secret may be created',
      async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true,
      {
        timeoutMs: 60_000,
      },
    );
    const stored = Buffer.from(
      (await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' })).data!.token!,
      'base64',
    ).toString();
    const rows = await query(url, 'SELECT id FROM api_keys');
    assert.deepEqual(
      rows.map((r) => r.id),
      [stored.split('-')[0]],
      'exactly one token, the one in the Secret',
    );
    secretsToFind.push(stored);
  });

  it('does not trust a token Secret with a forged controller owner reference that it did not create', async () => {
    const ns = await namespace('forged-owner');
    const created = await client.create(
      aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }),
    );
    const forged = await core.createNamespacedSecret({
      namespace: ns,
      body: unmarkedTokenSecret(created.metadata.uid!, 'planted-token-value'),
    });
    const url = await createCoderDatabase(postgres);
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    await eventually('TokenSecretNotOwned saying the operator did not create it', async () =>
      (await conditionLine(ns, 'coder', 'OperatorTokenSecretOwned')).startsWith(
        `False TokenSecretNotOwned: Secret "forged-owner/coder-operator-token" names this control plane as its controller owner, but the operator did not create it`,
      ),
    );
    await eventually('DatabaseSecretResolved', async () => (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')).startsWith('True'));
    const obj = await client.get(ns, 'coder');
    assert.equal(obj.status?.operatorAccessReady, false);
    assert.equal(obj.status?.operatorTokenSecretRef, undefined);
    const untouched = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
    assert.equal(untouched.metadata!.resourceVersion, forged.metadata!.resourceVersion, 'not overwritten');
    assert.equal((await query(url, 'SELECT 1 FROM api_keys')).length, 0, 'no token minted for it');
  });

  it('adopts a token Secret of an earlier version that holds the live token, and replaces its year-long token', async () => {
    const ns = await namespace('earlier-secret');
    const url = await createCoderDatabase(postgres);
    // No database Secret yet, so the controller creates no token Secret of its own.
    const created = await client.create(
      aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }),
    );
    // What the Go original left behind: a 365-day token, its Secret with the controller owner reference, none of today's marks.
    const earlier = await ensureOperatorToken({
      postgresURL: url,
      tokenName: operatorTokenName(ns, 'coder'),
      lifetimeSeconds: 365 * 24 * 3600,
    });
    await core.createNamespacedSecret({ namespace: ns, body: unmarkedTokenSecret(created.metadata.uid!, earlier.token) });
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    const marked = await eventually('the marks on the Secret, and a 30-day token in it', async () => {
      const found = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
      const back =
        found.metadata?.labels?.['coder.com/operator-token'] === 'true' && found.metadata?.annotations?.['coder.com/operator-token-owner'];
      return back && Buffer.from(found.data!.token!, 'base64').toString() !== earlier.token ? found : undefined;
    });
    assert.equal(marked.metadata!.annotations!['coder.com/operator-token-owner'], created.metadata.uid);
    const token = Buffer.from(marked.data!.token!, 'base64').toString();
    const rows = await query(url, "SELECT id, expires_at < now() + interval '31 days' AS short FROM api_keys");
    assert.deepEqual(rows, [{ id: token.split('-')[0], short: true }], 'one token, the 30-day one in the Secret');
    await eventually('OperatorAccessReady True', async () =>
      (await conditionLine(ns, 'coder', 'OperatorAccessReady')).startsWith('True Ready'),
    );
    const events = await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    const reasons = events.items.map((e) => e.reason);
    assert.ok(reasons.includes('OperatorTokenSecretAdopted'), reasons.join());
    assert.equal((await client.get(ns, 'coder')).status?.operatorTokenSecretUID, marked.metadata!.uid, 'its UID recorded');
    assert.ok(!reasons.includes('TokenSecretWriteFailed'), 'the rotation after adopting wrote to the adopted Secret, not a stale copy');
    secretsToFind.push(earlier.token, token);
  });

  it('uploads the license with the operator token and refuses a cross-origin redirect', async () => {
    const ns = await namespace('licensed');
    const url = await createCoderDatabase(postgres);
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'coder-license' }, stringData: { license: fakeLicenseJwt() } },
    });
    await client.create(
      aControlPlaneIn(ns, 'coder', {
        database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } },
        licenseSecretRef: { name: 'coder-license' },
      }),
    );
    await eventually('the operator token to exist', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 90_000,
    });
    const token = Buffer.from(
      (await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' })).data!.token!,
      'base64',
    ).toString();
    coder.addToken(token);
    await eventually('LicenseApplied', async () => (await conditionLine(ns, 'coder', 'LicenseApplied')).startsWith('True Applied'), {
      timeoutMs: 60_000,
    });
    const jwt = Buffer.from(
      (await core.readNamespacedSecret({ namespace: ns, name: 'coder-license' })).data!.license!,
      'base64',
    ).toString();
    const licensed = await eventually(
      'the license hash and the entitlements snapshot in status',
      async () => {
        const obj = await client.get(ns, 'coder');
        return obj.status?.licenseTier !== 'unknown' && obj.status?.entitlementsLastChecked ? obj : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(licensed.status!.licenseLastAppliedHash, createHash('sha256').update(jwt.trim()).digest('hex'));
    assert.ok(['enterprise', 'trial', 'premium'].includes(licensed.status!.licenseTier!), licensed.status!.licenseTier);
    const uploads = coder.requests.filter((r) => r.method === 'POST' && r.path === '/api/v2/licenses');
    assert.ok(uploads.length >= 1 && uploads.every((r) => r.token === token));
    secretsToFind.push(token);

    // A new license whose upload Coder redirects to another origin: the call fails and that origin hears nothing.
    const elsewhere = await startCoderApiDouble();
    try {
      coder.redirect('/api/v2/licenses', { to: `${elsewhere.url}/api/v2/licenses`, status: 307 });
      await core.replaceNamespacedSecret({
        namespace: ns,
        name: 'coder-license',
        body: { metadata: { name: 'coder-license' }, stringData: { license: fakeLicenseJwt({ rotated: true }) } },
      });
      await eventually(
        'LicenseApplied False Error after the refused redirect',
        async () => (await conditionLine(ns, 'coder', 'LicenseApplied')).startsWith('False Error'),
        { timeoutMs: 60_000 },
      );
      assert.deepEqual(elsewhere.requests, [], 'the other origin received no request, and so no token');
      assert.match(readFileSync(operator.logFile, 'utf8'), /refusing redirect to a different origin than the coder URL/);
    } finally {
      coder.reset();
      coder.addToken(token);
      await elsewhere.stop();
    }
  });

  it('names an extraRules entry the operator cannot grant, and applies it once an admin grants it as the docs say', async () => {
    // The operator holds configmaps get, list and watch (it watches envFrom ConfigMaps), not create.
    const ns = await namespace('rbac-extra');
    const extraRules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }];
    await client.create(aControlPlaneIn(ns, 'coder', { operatorAccess: { disabled: true }, rbac: { extraRules } }));
    const refused = await eventually('WorkspaceRBACReady False', async () => {
      const line = await conditionLine(ns, 'coder', 'WorkspaceRBACReady');
      return line.startsWith('False') && line;
    });
    assert.match(
      refused,
      /^False RulesNotGrantable: The API server refused the workspace Role in "rbac-extra": the operator does not hold configmaps \(core\): create, which spec\.rbac\.extraRules\[0\] asks for, .* ClusterRole labelled coder\.com\/aggregate-to-workspace-grantable: "true", or remove them from spec\.rbac\.extraRules\./,
    );
    assert.match(await conditionLine(ns, 'coder', 'Ready'), /^False WorkspaceRBACNotReady: /);
    await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=Stalled', 'codercontrolplane/coder', '--timeout=30s']);
    const warning = await eventually('a Warning Event', async () =>
      (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items.find(
        (e) => e.reason === 'RulesNotGrantable' && e.type === 'Warning',
      ),
    );
    assert.match(warning.note ?? '', /spec\.rbac\.extraRules\[0\]/);

    await kubectlOk(admin, ['apply', '-f', 'config/samples/workspace_grantable_configmaps.yaml']);
    try {
      // The operator looks again every minute: nothing tells it when a ClusterRole is aggregated.
      await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=WorkspaceRBACReady', 'codercontrolplane/coder', '--timeout=120s']);
      const roles = await cp.adminConfig().makeApiClient(RbacAuthorizationV1Api).listNamespacedRole({ namespace: ns });
      assert.equal(roles.items.length, 1);
      assert.deepEqual(
        { ...roles.items[0]!.rules!.at(-1) },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] },
      );
    } finally {
      await kubectlOk(admin, ['delete', '-f', 'config/samples/workspace_grantable_configmaps.yaml']);
    }
  });

  it('removes workspace RBAC in other namespaces and its finalizer on deletion', async () => {
    const ns = await namespace('rbac-owner');
    const other = await namespace('rbac-workspaces');
    await kubectlOk(admin, ['label', 'namespace', other, 'coder.com/workspace-namespace=true']);
    await kubectlOk(admin, ['annotate', 'namespace', other, `coder.com/workspace-control-planes=${ns}/coder`]);
    await client.create(aControlPlaneIn(ns, 'coder', { operatorAccess: { disabled: true }, rbac: { workspaceNamespaces: [other] } }));
    const rbac = cp.adminConfig().makeApiClient(RbacAuthorizationV1Api);
    await eventually(
      'a workspace Role in the other namespace',
      async () => (await rbac.listNamespacedRole({ namespace: other })).items.length === 1,
    );
    await client.delete(ns, 'coder');
    await eventually(
      'the cross-namespace Role and RoleBinding to be gone',
      async () =>
        (await rbac.listNamespacedRole({ namespace: other })).items.length +
          (await rbac.listNamespacedRoleBinding({ namespace: other })).items.length ===
        0,
    );
    await eventually('the control plane to be gone', async () =>
      client.get(ns, 'coder').then(
        () => false,
        (err) => apiStatus(err).code === 404,
      ),
    );
    await eventually(
      'the Deployment to be garbage-collected',
      async () => (await cp.adminConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: ns })).items.length === 0,
      { timeoutMs: 60_000 },
    );
  });

  it('turns off operator access on request: the token is revoked in Coder and its Secret deleted', async () => {
    const ns = await namespace('access-off');
    const url = await createCoderDatabase(postgres);
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, url) });
    await client.create(aControlPlaneIn(ns, 'coder', { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } }));
    await eventually('operator access ready', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 60_000,
    });
    assert.equal((await query(url, "SELECT 1 FROM api_keys WHERE login_type = 'token'")).length, 1);
    await client.mergePatch(ns, 'coder', { spec: { operatorAccess: { disabled: true } } });
    await eventually(
      'the token revoked and the Secret gone',
      async () => {
        const rows = await query(url, "SELECT 1 FROM api_keys WHERE login_type = 'token'");
        const secret = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' }).then(
          () => true,
          () => false,
        );
        const obj = await client.get(ns, 'coder');
        return (
          rows.length === 0 &&
          !secret &&
          obj.status?.operatorAccessReady === false &&
          obj.status.operatorTokenSecretRef === undefined &&
          !obj.status.conditions?.some((c) => c.type === 'OperatorTokenSecretOwned')
        );
      },
      { timeoutMs: 60_000 },
    );
  });

  it('reports ConflictingConfiguration and leaves the Deployment alone when an object got past admission', async () => {
    const ns = await namespace('db-conflict');
    await core.createNamespacedSecret({ namespace: ns, body: dbSecret(ns, postgres.url('coder')) });
    await client.create(
      aControlPlaneIn(ns, 'coder', {
        operatorAccess: { disabled: true },
        database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } },
      }),
    );
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const deployment = await eventually('the Deployment', () => apps.readNamespacedDeployment({ namespace: ns, name: 'coder' }));
    await eventually('Resolved', async () => (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')).startsWith('True Resolved'));
    const rules = '/spec/versions/0/schema/openAPIV3Schema/properties/spec';
    await kubectlOk(admin, [
      'patch',
      'crd',
      'codercontrolplanes.coder.com',
      '--type=json',
      `-p=${JSON.stringify([
        { op: 'remove', path: `${rules}/x-kubernetes-validations` },
        { op: 'remove', path: `${rules}/properties/database/x-kubernetes-validations` },
      ])}`,
    ]);
    try {
      await eventually('the relaxed CRD to admit the conflict', () =>
        client.mergePatch(ns, 'coder', {
          spec: { extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'postgres://other@db.example/coder' }], replicas: 2 },
        }),
      );
      await eventually(
        'ConflictingConfiguration',
        async () =>
          (await conditionLine(ns, 'coder', 'DatabaseSecretResolved')) ===
          'False ConflictingConfiguration: spec.extraEnv must not set CODER_PG_CONNECTION_URL when spec.database.connectionSecretRef is set',
      );
      const after = await apps.readNamespacedDeployment({ namespace: ns, name: 'coder' });
      assert.equal(after.metadata!.generation, deployment.metadata!.generation, 'the Deployment spec was not changed');
      assert.equal(after.spec!.replicas, 1);

      // A stored spec that cannot be built (an empty Secret name) is refused in a condition naming the field.
      await client.create(aControlPlaneIn(ns, 'empty-name', { database: { connectionSecretRef: { name: '', key: 'uri' } } }));
      await eventually('SpecValid InvalidSpec naming the field', async () =>
        (await conditionLine(ns, 'empty-name', 'SpecValid')).startsWith(
          'False InvalidSpec: spec.database.connectionSecretRef.name: connectionSecretRef.name must not be empty',
        ),
      );
      assert.equal(
        await apps.readNamespacedDeployment({ namespace: ns, name: 'empty-name' }).then(
          () => true,
          () => false,
        ),
        false,
      );
    } finally {
      await kubectlOk(admin, ['apply', '-f', 'config/crd/bases/coder.com_codercontrolplanes.yaml']);
      // The API server answers 429 while it re-initializes the storage of a changed CRD.
      await eventually('the restored CRD to serve again', async () => (await client.list(ns)) && client.list());
    }
  });

  it('never writes the database URL, its password or a token to its log, status or Events', async () => {
    const log = readFileSync(operator.logFile, 'utf8');
    const statuses = JSON.stringify((await eventually('the control planes', () => client.list())).items.map((o) => o.status));
    const events = JSON.stringify((await cp.adminConfig().makeApiClient(EventsV1Api).listEventForAllNamespaces()).items);
    const deployments = JSON.stringify((await cp.adminConfig().makeApiClient(AppsV1Api).listDeploymentForAllNamespaces()).items);
    for (const secret of [...secretsToFind, postgres.url('coder')]) {
      for (const [where, text] of [
        ['log', log],
        ['status', statuses],
        ['events', events],
        ['deployments', deployments],
      ] as const) {
        assert.ok(!text.includes(secret), `${where} contains a secret value`);
      }
    }
    assert.ok(events.includes('OperatorTokenCreated'), 'token creation was recorded as an Event');
  });

  // Last, so that the audit log holds the whole suite: every verb the control-plane controller and the
  // runtime declare (and so the generated role grants for them) was used, or is listed here with the reason.
  it('used every verb its declared permissions grant, as the audit log of this suite shows', async () => {
    const granted = grantsOf([...controlPlanePermissions, ...runtimePermissions]);
    const used = usedGrants(await cp.auditEvents({ username: operatorUser, stages: ['ResponseStarted', 'ResponseComplete'] }));
    const unused = unusedGrants(granted, used, grantsNotExercisedBySuite);
    assert.deepEqual(unused, [], `granted but never used: ${unused.join(', ')}`);
  });
});

/** The deploy guide's upgrade check, run as written (bash, kubectl, jq). */
async function runSeedUpgradeCheck(kubeconfig: string): Promise<string> {
  const script = `kubectl get codercontrolplanes -A -o json | jq -r '.items[] | select(.spec.operatorAccess.disabled != true) |
  "\\(.metadata.namespace) \\(.status.operatorTokenSecretRef.name // .spec.operatorAccess.generatedTokenSecretName // (.metadata.name + "-operator-token")) \\(.metadata.uid)"' |
while read -r ns secret uid; do
  owner=$(kubectl -n "$ns" get secret "$secret" -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].uid}' 2>/dev/null) || continue
  [ "$owner" = "$uid" ] || echo "not owned: $ns/$secret"
done`;
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { env: { ...process.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
