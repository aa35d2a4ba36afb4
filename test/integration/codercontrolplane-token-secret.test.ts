// The operator token Secret against the users who may create or patch Secrets in the control plane's
// namespace but not control planes: a Secret forged with the control plane's owner reference and the
// operator's marks never receives the token, and an annotation on the operator's own Secret (a replicator's)
// stops the token it held and keeps any new one out of it. And the deploy guide's two fixes for a Secret it
// does not own: delete a leftover one, or name another in spec.operatorAccess.generatedTokenSecretName.
import { CoreV1Api, EventsV1Api, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import { createCoderDatabase, query } from '../harness/coder-database.ts';
import type { ControlPlane } from '../harness/control-plane.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import type { Postgres } from '../harness/postgres.ts';
import { eventually } from '../harness/wait.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';

const reflection = 'reflector.v1.k8s.emberstack.com/reflection-allowed';
const seedJsonpath = (type: string) =>
  `jsonpath={range .status.conditions[?(@.type=="${type}")]}{.status} {.reason}: {.message}{"\\n"}{end}`;

describe('CoderControlPlane operator token Secret against users who may write Secrets', () => {
  let env: OperatorEnvironment | undefined;
  let cp: ControlPlane;
  let postgres: Postgres;
  let admin: string;
  let client: CoderControlPlaneClient;
  let core: CoreV1Api;

  before(async () => {
    env = await operatorEnvironment();
    ({ cp, postgres, admin } = env);
    client = coderControlPlaneClient(cp.adminConfig());
    core = cp.adminConfig().makeApiClient(CoreV1Api);
  });
  after(() => env?.stop());

  /** A namespace where `user` holds exactly `rules`, and a kubeconfig of that user. */
  const namespaceWithUser = async (ns: string, user: string, rules: string) => {
    await kubectlOk(admin, ['create', 'namespace', ns]);
    await kubectlOk(
      admin,
      ['apply', '-f', '-'],
      `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: ${user}, namespace: ${ns}}
rules: ${rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ${user}, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${user}}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${user}}]
`,
    );
    return cp.userKubeconfig(user);
  };
  const database = { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } };
  const createDatabaseSecret = async (ns: string, url: string) =>
    core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'coder-db-app' }, stringData: { uri: url } } });
  const conditionLine = async (ns: string, type: string) =>
    (await kubectlOk(admin, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', seedJsonpath(type)])).trim();
  const conditionIs = (ns: string, type: string, prefix: string, timeoutMs = 60_000) =>
    eventually(
      `${type} "${prefix}…" on ${ns}/coder`,
      async () => {
        const line = await conditionLine(ns, type);
        return line.startsWith(prefix) ? line : undefined;
      },
      { timeoutMs },
    );
  const readSecret = (ns: string) => core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token' });
  const tokenOf = (secret: V1Secret) => Buffer.from(secret.data!.token!, 'base64').toString();
  const tokenIds = async (url: string) => (await query(url, 'SELECT id FROM api_keys ORDER BY id')).map((r) => r.id);

  it('never writes the token into a Secret forged with the owner reference, the marks and a reflector annotation; creates its own once it is deleted', async () => {
    const ns = 'forged-token';
    // May create Secrets and read control planes (to copy the UID), not create or change control planes.
    const mallory = await namespaceWithUser(
      ns,
      'mallory',
      '[{apiGroups: [""], resources: [secrets], verbs: [create]}, {apiGroups: [coder.com], resources: [codercontrolplanes], verbs: [get]}]',
    );
    assert.equal((await kubectl(mallory, ['-n', ns, 'auth', 'can-i', 'create', 'codercontrolplanes'])).stdout.trim(), 'no');
    // The admin creates the control plane; its database is not ready yet, so the operator has no Secret of its own.
    await client.create(aControlPlane('coder').inNamespace(ns).withSpec({ database }).manifest());
    const uid = await kubectlOk(mallory, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', 'jsonpath={.metadata.uid}']);
    // The operator's marks, as the deploy guide lists them.
    const marks = {
      labels: {
        'app.kubernetes.io/name': 'coder-control-plane',
        'app.kubernetes.io/instance': 'coder',
        'app.kubernetes.io/managed-by': 'coder-k8s',
        'coder.com/credential': 'true',
        'coder.com/operator-token': 'true',
      },
      annotations: { 'coder.com/credential-destinations': 'codercontrolplane/coder', 'coder.com/operator-token-owner': uid },
    };
    const forged = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'coder-operator-token',
        namespace: ns,
        ownerReferences: [{ apiVersion: 'coder.com/v1alpha1', kind: 'CoderControlPlane', name: 'coder', uid, controller: true }],
        labels: marks.labels,
        annotations: { ...marks.annotations, [reflection]: 'true' },
      },
      stringData: { token: 'planted-token-value' },
    };
    await kubectlOk(mallory, ['create', '-f', '-'], JSON.stringify(forged));
    const planted = await readSecret(ns);

    const url = await createCoderDatabase(postgres);
    await createDatabaseSecret(ns, url);
    const owned = await conditionIs(ns, 'OperatorTokenSecretOwned', 'False TokenSecretNotOwned:');
    assert.match(
      owned,
      /Secret "forged-token\/coder-operator-token" names this control plane as its controller owner, but the operator did not create it/,
    );
    assert.match(owned, /Delete it: the controller then creates its own Secret and a new operator token\./);
    // The operator read the database URL and still refused: this is the Secret's verdict, not a missing database.
    await conditionIs(ns, 'OperatorAccessReady', 'False TokenSecretNotOwned:');
    const refused = await client.get(ns, 'coder');
    assert.equal(refused.status?.operatorAccessReady, false);
    assert.equal(refused.status?.operatorTokenSecretRef, undefined);
    assert.equal(refused.status?.operatorTokenSecretUID, undefined);
    const untouched = await readSecret(ns);
    assert.equal(untouched.metadata!.resourceVersion, planted.metadata!.resourceVersion, 'the forged Secret was not written');
    assert.equal(tokenOf(untouched), 'planted-token-value');
    assert.deepEqual(await tokenIds(url), [], 'no operator token minted in Coder');
    const events = (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items;
    assert.ok(
      events.some(
        (e) => e.type === 'Warning' && e.reason === 'TokenSecretNotOwned' && e.note?.includes('forged-token/coder-operator-token'),
      ),
      events.map((e) => `${e.type} ${e.reason}`).join(', '),
    );

    // The fix the condition names.
    await kubectlOk(admin, ['-n', ns, 'delete', 'secret', 'coder-operator-token']);
    const ready = await eventually(
      'operator access with a Secret of its own',
      async () => {
        const obj = await client.get(ns, 'coder');
        return obj.status?.operatorAccessReady ? obj : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const own = await readSecret(ns);
    assert.notEqual(own.metadata!.uid, planted.metadata!.uid);
    assert.equal(ready.status!.operatorTokenSecretUID, own.metadata!.uid, 'the status records the UID of the Secret it created');
    assert.equal(own.metadata!.annotations?.[reflection], undefined);
    assert.deepEqual(Object.keys(own.metadata!.annotations ?? {}).sort(), Object.keys(marks.annotations).sort());
    assert.deepEqual(await tokenIds(url), [tokenOf(own).split('-')[0]], 'one token, the one in its own Secret');
  });

  it('revokes the token of its own Secret once a user annotates it for reflection, writes no new one there, and goes on once it is removed', async () => {
    const ns = 'annotated-token';
    // May read and patch Secrets: annotating is all this user does.
    const rita = await namespaceWithUser(ns, 'rita', '[{apiGroups: [""], resources: [secrets], verbs: [get, patch]}]');
    const url = await createCoderDatabase(postgres);
    await createDatabaseSecret(ns, url);
    await client.create(aControlPlane('coder').inNamespace(ns).withSpec({ database }).manifest());
    await eventually('operator access', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 60_000,
    });
    const first = tokenOf(await readSecret(ns));

    await kubectlOk(rita, ['-n', ns, 'annotate', 'secret', 'coder-operator-token', `${reflection}=true`]);
    const owned = await conditionIs(ns, 'OperatorTokenSecretOwned', 'False ForeignAnnotations:');
    assert.match(owned, new RegExp(`carries annotations that the operator did not set: ${reflection.replaceAll('.', '\\.')}\\.`));
    await eventually('the token revoked in Coder', async () => (await tokenIds(url)).length === 0);
    await eventually('a Warning Event OperatorTokenRevoked naming the annotation', async () =>
      (await cp.adminConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items.some(
        (e) => e.type === 'Warning' && e.reason === 'OperatorTokenRevoked' && e.note?.includes(reflection),
      ),
    );
    const refused = await client.get(ns, 'coder');
    assert.equal(refused.status?.operatorAccessReady, false);
    assert.equal(refused.status?.operatorTokenSecretRef, undefined);
    assert.equal(tokenOf(await readSecret(ns)), first, 'no new token written into the annotated Secret');
    // The deploy guide's upgrade check finds it too.
    assert.match(
      await runDocsAnnotationCheck(admin),
      new RegExp(`^foreign annotation on ${ns}/coder-operator-token: ${reflection.replaceAll('.', '\\.')}$`, 'm'),
    );

    await kubectlOk(rita, ['-n', ns, 'annotate', 'secret', 'coder-operator-token', `${reflection}-`]);
    await conditionIs(ns, 'OperatorTokenSecretOwned', 'True TokenSecretOwned:');
    await eventually('operator access again', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 60_000,
    });
    const second = tokenOf(await readSecret(ns));
    assert.notEqual(second, first);
    assert.deepEqual(await tokenIds(url), [second.split('-')[0]], 'only the new token is live');
  });

  it('refuses the leftover token Secret of a control plane deleted with --cascade=orphan and created again; makes a new Secret and token once it is deleted', async () => {
    const ns = 'orphaned-token';
    await kubectlOk(admin, ['create', 'namespace', ns]);
    const url = await createCoderDatabase(postgres);
    await createDatabaseSecret(ns, url);
    const manifest = JSON.stringify(aControlPlane('coder').inNamespace(ns).withSpec({ database }).manifest());
    await kubectlOk(admin, ['apply', '-f', '-'], manifest);
    await eventually('operator access', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 60_000,
    });
    const leftover = await readSecret(ns);

    await kubectlOk(admin, ['-n', ns, 'delete', 'codercontrolplane', 'coder', '--cascade=orphan']);
    await kubectlOk(admin, ['apply', '-f', '-'], manifest);
    const owned = await conditionIs(ns, 'OperatorTokenSecretOwned', 'False TokenSecretNotOwned:');
    assert.match(owned, /Delete it if it is a leftover operator token Secret/);
    assert.equal((await client.get(ns, 'coder')).status?.operatorAccessReady, false);
    const orphaned = await readSecret(ns);
    assert.equal(orphaned.metadata!.ownerReferences, undefined, 'garbage collection took the old owner reference off');
    assert.equal(tokenOf(orphaned), tokenOf(leftover), 'no token written into the leftover');

    // The seed's first fix. The Secret's delete reconciles the control plane at once: well before the 30 s re-check.
    await kubectlOk(admin, ['-n', ns, 'delete', 'secret', 'coder-operator-token']);
    await conditionIs(ns, 'OperatorTokenSecretOwned', 'True TokenSecretOwned:', 20_000);
    await eventually('operator access again', async () => (await client.get(ns, 'coder')).status?.operatorAccessReady === true, {
      timeoutMs: 90_000,
    });
    const fresh = await readSecret(ns);
    assert.notEqual(fresh.metadata!.uid, leftover.metadata!.uid);
    assert.notEqual(tokenOf(fresh), tokenOf(leftover));
    assert.deepEqual(await tokenIds(url), [tokenOf(fresh).split('-')[0]], 'only the new token is live');
  });

  it('leaves a token Secret that belongs to something else alone, and uses spec.operatorAccess.generatedTokenSecretName once set', async () => {
    const ns = 'renamed-token';
    await kubectlOk(admin, ['create', 'namespace', ns]);
    const url = await createCoderDatabase(postgres);
    await createDatabaseSecret(ns, url);
    const foreign = await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'coder-operator-token' }, stringData: { token: 'someone-elses' } },
    });
    await client.create(aControlPlane('coder').inNamespace(ns).withSpec({ database }).manifest());
    await conditionIs(ns, 'OperatorTokenSecretOwned', 'False TokenSecretNotOwned:');

    // The seed's second fix.
    const patch = { spec: { operatorAccess: { generatedTokenSecretName: 'coder-operator-token-2' } } };
    await kubectlOk(admin, ['-n', ns, 'patch', 'codercontrolplane', 'coder', '--type=merge', '-p', JSON.stringify(patch)]);
    const ready = await eventually(
      'operator access with the new Secret',
      async () => {
        const obj = await client.get(ns, 'coder');
        return obj.status?.operatorAccessReady ? obj : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(
      await conditionLine(ns, 'OperatorTokenSecretOwned'),
      `True TokenSecretOwned: Secret "${ns}/coder-operator-token-2" is controlled by this control plane.`,
    );
    assert.deepEqual(ready.status!.operatorTokenSecretRef, { name: 'coder-operator-token-2', key: 'token' });
    const own = await core.readNamespacedSecret({ namespace: ns, name: 'coder-operator-token-2' });
    assert.deepEqual(await tokenIds(url), [tokenOf(own).split('-')[0]]);
    const untouched = await readSecret(ns);
    assert.equal(untouched.metadata!.resourceVersion, foreign.metadata!.resourceVersion, 'the foreign Secret was not written');
    assert.equal(tokenOf(untouched), 'someone-elses');
  });
});

/** The deploy guide's check for foreign annotations on operator token Secrets, run as written there (bash, kubectl, jq). */
async function runDocsAnnotationCheck(kubeconfig: string): Promise<string> {
  const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'how-to', 'deploy-controller.md'), 'utf8');
  const script = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((block) => block.includes('foreign annotation on'));
  assert.ok(script, 'the guide has the annotation check');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { ...process.env, KUBECONFIG: kubeconfig } });
  return stdout;
}
