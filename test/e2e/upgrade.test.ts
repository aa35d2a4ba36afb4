// Upgrading from the Go coder-k8s: objects its looser CRDs admitted are still served and reconciled after
// the deploy guide's `kubectl apply -f config/crd/bases/ -f config/rbac/`, or name the field that stops them; and
// the operator token Secret it left behind is read and updated (seed: an owned Secret is read and updated).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api, EventsV1Api, type V1Role } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { ensureOperatorToken, operatorTokenName } from '../../src/coder/operator-access/index.ts';
import { buildWorkspaceRbac } from '../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import { goOriginalCrds, goOriginalKinds } from '../fixtures/go-original/crds.ts';
import { createCoderDatabase, query } from '../harness/coder-database.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { kubectlOk, waitForCrdsEstablished } from '../harness/kubectl.ts';
import { operatorNamespace, operatorServiceAccount, startOperator, type RunningOperator } from '../harness/operator.ts';
import { startPostgres, type Postgres } from '../harness/postgres.ts';
import { eventually } from '../harness/wait.ts';

const ns = 'coder';
const configMapsRule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] };
const env = Array.from({ length: 300 }, (_, i) => ({ name: `LEGACY_${i}`, value: String(i) }));

// Objects the Go original admitted, using what it allowed and this version's schema no longer does.
const legacyObjects = [
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderControlPlane',
    metadata: { name: 'legacy', namespace: ns },
    spec: {
      operatorAccess: { disabled: true },
      tolerations: [
        { key: 'dedicated', effect: '' },
        { key: 'gpu', operator: '', value: 'yes' },
      ],
      volumes: [{ name: 'data', image: { reference: 'registry.example.com/data:1', pullPolicy: '' } }],
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
      extraEnv: env,
      resources: { requests: { cpu: '0.5', memory: '512Mi' }, limits: { memory: '1e9' } },
      // A value this version's format check refuses; the Deployment does not depend on it.
      templateTests: { ownerUserID: 'not-a-uuid' },
    },
  },
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderControlPlane',
    metadata: { name: 'both-exposures', namespace: ns },
    spec: {
      operatorAccess: { disabled: true },
      expose: { ingress: { host: 'coder.example.com' }, gateway: { host: 'coder.example.com', parentRefs: [{ name: 'gw' }] } },
    },
  },
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderControlPlane',
    metadata: { name: 'go-rules', namespace: ns },
    // Workspace templates that read ConfigMaps: the Go original's own role held configmaps get, list and watch.
    spec: { operatorAccess: { disabled: true }, rbac: { extraRules: [configMapsRule] } },
  },
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderProvisioner',
    metadata: { name: 'no-ref', namespace: ns },
    spec: { controlPlaneRef: {} },
  },
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderWorkspaceProxy',
    metadata: { name: 'eu-west', namespace: ns },
    spec: { replicas: 1, extraEnv: env },
  },
  {
    apiVersion: 'coder.com/v1alpha1',
    kind: 'CoderTemplateTest',
    metadata: { name: 'docker-active', namespace: ns },
    spec: { controlPlaneRef: { name: 'legacy' }, template: 'coder.docker', version: { active: true } },
  },
];

const day = 24 * 3600;

describe('upgrade from the Go original', () => {
  let cp: ControlPlane;
  let postgres: Postgres;
  let admin: string;
  let operator: RunningOperator | undefined;
  let goEraRoleName: string;
  /** The Go original's control plane with operator access: its database, and the token it left, expired since. */
  const goEra = { databaseURL: '', expiredToken: '', secretUID: '' };
  const condition = (name: string, type: string, kind = 'codercontrolplane') =>
    kubectlOk(admin, [
      '-n',
      ns,
      'get',
      kind,
      name,
      '-o',
      `jsonpath={.status.conditions[?(@.type=="${type}")].status} {.status.conditions[?(@.type=="${type}")].reason}: {.status.conditions[?(@.type=="${type}")].message}`,
    ]);

  before(async () => {
    [cp, postgres] = await Promise.all([startControlPlane({ kwok: true }), startPostgres()]);
    admin = cp.adminKubeconfigPath;
    await kubectlOk(admin, ['create', 'namespace', operatorNamespace]);
    await kubectlOk(admin, ['create', 'namespace', ns]);
    await kubectlOk(admin, ['apply', '-f', '-'], goOriginalCrds());
    await kubectlOk(admin, ['apply', '-f', 'test/fixtures/go-original/manager-role.yaml']);
    await waitForCrdsEstablished(
      admin,
      goOriginalKinds.map((plural) => `${plural}.coder.com`),
    );
    for (const obj of legacyObjects) await kubectlOk(admin, ['create', '-f', '-'], JSON.stringify(obj));
    goEraRoleName = await createGoEraWorkspaceRole('go-rules');
    await leaveGoEraOperatorAccess();
  });

  /** The workspace Role the Go original made for a control plane: the same name and rules, owned by it, without this version's marks. */
  async function createGoEraWorkspaceRole(name: string): Promise<string> {
    const controlPlane = JSON.parse(
      await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', name, '-o', 'json']),
    ) as CoderControlPlane;
    const { role } = buildWorkspaceRbac(controlPlane)[0]!;
    role.metadata = { name: role.metadata!.name!, namespace: ns, ownerReferences: role.metadata!.ownerReferences! };
    await kubectlOk(admin, ['create', '-f', '-'], JSON.stringify(role));
    return role.metadata.name!;
  }
  after(async () => {
    await operator?.process.stop();
    await cp?.stop();
    await postgres?.stop();
  });

  /**
   * What the Go original leaves for a control plane with operator access: the database URL in a Secret named by
   * CODER_PG_CONNECTION_URL, a token it issued for a year (the operator was stopped past its expiry), the token
   * Secret with the control plane as its controller owner and its labels but none of today's marks, and the
   * status that names that Secret (status.operatorTokenSecretRef, operatorAccessReady).
   */
  async function leaveGoEraOperatorAccess() {
    goEra.databaseURL = await createCoderDatabase(postgres);
    await kubectlOk(admin, ['-n', ns, 'create', 'secret', 'generic', 'go-era-db', `--from-literal=url=${goEra.databaseURL}`]);
    const created = JSON.parse(
      await kubectlOk(
        admin,
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify({
          apiVersion: 'coder.com/v1alpha1',
          kind: 'CoderControlPlane',
          metadata: { name: 'go-era', namespace: ns },
          spec: { extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', valueFrom: { secretKeyRef: { name: 'go-era-db', key: 'url' } } }] },
        }),
      ),
    ) as { metadata: { uid: string } };
    ({ token: goEra.expiredToken } = await ensureOperatorToken({
      postgresURL: goEra.databaseURL,
      tokenName: operatorTokenName(ns, 'go-era'),
      lifetimeSeconds: 365 * day,
      now: new Date(Date.now() - 400 * day * 1000),
    }));
    const secret = JSON.parse(
      await kubectlOk(
        admin,
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: 'go-era-operator-token',
            namespace: ns,
            labels: {
              'app.kubernetes.io/name': 'coder-control-plane',
              'app.kubernetes.io/instance': 'go-era',
              'app.kubernetes.io/managed-by': 'coder-k8s',
            },
            ownerReferences: [
              {
                apiVersion: 'coder.com/v1alpha1',
                kind: 'CoderControlPlane',
                name: 'go-era',
                uid: created.metadata.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          type: 'Opaque',
          stringData: { token: goEra.expiredToken },
        }),
      ),
    ) as { metadata: { uid: string } };
    goEra.secretUID = secret.metadata.uid;
    await kubectlOk(admin, [
      '-n',
      ns,
      'patch',
      'codercontrolplane',
      'go-era',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          observedGeneration: 1,
          phase: 'Pending',
          url: `http://go-era.${ns}.svc.cluster.local:80`,
          operatorAccessReady: true,
          operatorTokenSecretRef: { name: 'go-era-operator-token', key: 'token' },
        },
      }),
    ]);
  }

  it("applies the deploy guide's upgrade command over the Go original's install, replacing its role's rules", async () => {
    const out = await kubectlOk(admin, ['apply', '-f', 'config/crd/bases/', '-f', 'config/rbac/']);
    assert.match(out, /clusterrole\.rbac\.authorization\.k8s\.io\/manager-role configured/);
    assert.match(out, /clusterrolebinding\.rbac\.authorization\.k8s\.io\/coder-k8s (configured|unchanged)/);
    await waitForCrdsEstablished(admin);
    const role = JSON.parse(await kubectlOk(admin, ['get', 'clusterrole', 'manager-role', '-o', 'json'])) as { rules: unknown[] };
    const generated = parse(readFileSync('config/rbac/role.yaml', 'utf8')) as { rules: unknown[] };
    assert.deepEqual(role.rules, generated.rules, 'only the generated rules are left');
    const subjects = await kubectlOk(admin, [
      'get',
      'clusterrolebinding',
      'coder-k8s',
      '-o',
      'jsonpath={.subjects[0].namespace}/{.subjects[0].name}',
    ]);
    assert.equal(subjects, `${operatorNamespace}/${operatorServiceAccount}`);
  });

  it('still serves every legacy object, and takes edits of them (the API server ratchets)', async () => {
    for (const obj of legacyObjects) {
      const kind = obj.kind.toLowerCase();
      await kubectlOk(admin, ['-n', ns, 'label', kind, obj.metadata.name, 'upgraded=true']);
      assert.equal(
        await kubectlOk(admin, ['-n', ns, 'get', kind, obj.metadata.name, '-o', 'jsonpath={.metadata.labels.upgraded}']),
        'true',
      );
    }
  });

  it('reconciles the legacy control plane and names the value this schema refuses', async () => {
    operator = await startOperator(cp, await cp.operatorKubeconfig(operatorNamespace, operatorServiceAccount));
    const apps = cp.adminConfig().makeApiClient(AppsV1Api);
    const deployment = await eventually('the Deployment of the legacy control plane', () =>
      apps.readNamespacedDeployment({ namespace: ns, name: 'legacy' }),
    );
    const pod = deployment.spec!.template.spec!;
    assert.deepEqual(
      pod.tolerations?.map((t) => [t.key, t.operator ?? '', t.effect ?? '']),
      [
        ['dedicated', '', ''],
        ['gpu', '', ''],
      ],
      'the Deployment carries the empty effect and operator, which Kubernetes accepts',
    );
    const names = new Set(pod.containers[0]!.env?.map((e) => e.name));
    assert.ok(
      env.every((e) => names.has(e.name)),
      'all 300 environment variables',
    );
    assert.ok(
      pod.volumes?.some((v) => v.name === 'data'),
      'the volume with an empty pull policy',
    );

    const specValid = await eventually('SpecValid of the legacy control plane', async () => {
      const line = await condition('legacy', 'SpecValid');
      return line.startsWith('True Valid:') ? line : undefined;
    });
    assert.match(
      specValid,
      /This operator's schema refuses values that the API server keeps until they change: spec\.templateTests\.ownerUserID/,
    );
    await eventually('observedGeneration of the legacy control plane', async () => {
      const [generation, observed] = (
        await kubectlOk(admin, [
          '-n',
          ns,
          'get',
          'codercontrolplane',
          'legacy',
          '-o',
          'jsonpath={.metadata.generation} {.status.observedGeneration}',
        ])
      ).split(' ');
      return generation === observed;
    });
    const describe = await kubectlOk(admin, ['-n', ns, 'describe', 'codercontrolplane', 'legacy']);
    assert.match(describe, /Warning\s+SchemaWarning/);
  });

  it('takes over the Go-era workspace Role with its configmaps extraRules, which the operator holds as the Go original did', async () => {
    await kubectlOk(admin, ['-n', ns, 'wait', '--for=condition=WorkspaceRBACReady', 'codercontrolplane/go-rules', '--timeout=150s']);
    const applied = JSON.parse(await kubectlOk(admin, ['-n', ns, 'get', 'role', goEraRoleName, '-o', 'json'])) as V1Role;
    assert.equal(applied.metadata?.labels?.['coder.com/control-plane'], 'go-rules', "now with this version's marks");
    assert.deepEqual(applied.rules?.at(-1), configMapsRule);
  });

  it('names the field of the control plane it cannot build, and builds nothing for it', async () => {
    await eventually('SpecValid of the control plane with both exposures', async () =>
      (await condition('both-exposures', 'SpecValid')).startsWith(
        'False InvalidSpec: spec.expose: only one of ingress or gateway may be set',
      ),
    );
    const deployments = await kubectlOk(admin, ['-n', ns, 'get', 'deployments', '-o', 'name']);
    assert.doesNotMatch(deployments, /both-exposures/);
  });

  it('reconciles the legacy provisioner, workspace proxy and template test, each naming what stops it', async () => {
    // The Go original let a provisioner leave its control plane unnamed; this version names the field.
    const provisioner = await eventually('SpecValid of the legacy provisioner', async () => {
      const line = await condition('no-ref', 'SpecValid', 'coderprovisioner');
      return line.startsWith('False InvalidSpec:') ? line : undefined;
    });
    assert.match(provisioner, /spec\.controlPlaneRef\.name/);
    assert.match(await condition('no-ref', 'Stalled', 'coderprovisioner'), /^True InvalidSpec:/);

    // A proxy with neither spec.controlPlaneRef nor spec.bootstrap cannot register anywhere: it says which fields.
    const proxy = await eventually('SpecValid of the legacy workspace proxy', async () => {
      const line = await condition('eu-west', 'SpecValid', 'coderworkspaceproxy');
      return line.startsWith('False InvalidSpec:') ? line : undefined;
    });
    assert.match(proxy, /spec\.(controlPlaneRef|bootstrap|primaryAccessURL)/);
    assert.match(await condition('eu-west', 'Ready', 'coderworkspaceproxy'), /^False InvalidSpec:/);

    // The template test's control plane has operator access off: it waits, and says so.
    const templateTest = await eventually('Ready of the legacy template test', async () => {
      const line = await condition('docker-active', 'Ready', 'codertemplatetest');
      return line.startsWith('False ') ? line : undefined;
    });
    assert.match(templateTest, /^False (OperatorAccessNotReady|ControlPlaneNotReady):/);
  });

  it("reads and updates the Go original's token Secret whose token expired: a fresh token in the same Secret, which works", async () => {
    const core = cp.adminConfig().makeApiClient(CoreV1Api);
    const ready = await eventually(
      'operator access of the Go-era control plane',
      async () => {
        const obj = JSON.parse(await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', 'go-era', '-o', 'json'])) as {
          status?: { operatorAccessReady?: boolean; operatorTokenSecretUID?: string; conditions?: { type: string; status: string }[] };
        };
        return obj.status?.conditions?.some((c) => c.type === 'OperatorAccessReady' && c.status === 'True') ? obj : undefined;
      },
      { timeoutMs: 90_000 },
    );
    assert.equal(ready.status!.operatorAccessReady, true);
    assert.equal(
      await condition('go-era', 'OperatorTokenSecretOwned'),
      'True TokenSecretOwned: Secret "coder/go-era-operator-token" is controlled by this control plane.',
    );
    const secret = await core.readNamespacedSecret({ namespace: ns, name: 'go-era-operator-token' });
    assert.equal(secret.metadata!.uid, goEra.secretUID, 'the same Secret, updated, not replaced');
    assert.equal(ready.status!.operatorTokenSecretUID, goEra.secretUID, 'its UID recorded in the status');
    assert.equal(secret.metadata!.labels?.['coder.com/operator-token'], 'true', "the operator's marks added");
    const token = Buffer.from(secret.data!.token!, 'base64').toString();
    assert.notEqual(token, goEra.expiredToken, 'a fresh token');
    const rows = await query(goEra.databaseURL, "SELECT id, expires_at > now() + interval '29 days' AS fresh FROM api_keys");
    assert.deepEqual(rows, [{ id: token.split('-')[0], fresh: true }], "the fresh token is the operator's one live token in Coder");
    const events = (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items;
    const reasons = events.filter((e) => e.regarding?.name === 'go-era').map((e) => e.reason);
    assert.ok(reasons.includes('OperatorTokenSecretAdopted') && reasons.includes('OperatorTokenRotated'), reasons.join());
  });
});
