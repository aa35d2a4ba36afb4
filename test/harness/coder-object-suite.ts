// What the suites of the kinds that keep an object in a control plane's Coder (the AI kinds) share: the
// operator as its own process with a short Coder resync, a namespace with a control plane whose operator
// access is ready against the Coder API double, reading and awaiting conditions, the quiet-period check, a
// deletion held back by Coder, a CRD relaxed so that a spec of the wrong type is stored, and a second tenant
// who may only create objects of a kind.
import { grantOnly } from './namespaced-user.ts';
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Condition } from '../../src/runtime/conditions.ts';
import type { CustomResourceClient } from '../../src/runtime/custom-resource-client.ts';
import type { KubeObject } from '../../src/runtime/informer.ts';
import type { RecordedRequest } from './coder-api-double.ts';
import { controlPlaneWithOperatorAccess, entitlementsRead } from './control-plane-with-access.ts';
import { kubectlOk } from './kubectl.ts';
import { operatorWrites, writeKind } from './operator-writes.ts';
import { operatorEnvironment, type OperatorEnvironment } from './operator-environment.ts';
import { eventually } from './wait.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CoderObjectSuite {
  env: OperatorEnvironment;
  core: CoreV1Api;
  /** The operator token of the control plane "coder" in the suite's namespace (valid in the double). */
  token: string;
}

/** The operator with `--coder-resync-period`, the namespace, and control plane "coder" with operator access, settled. */
export async function startCoderObjectSuite(
  namespace: string,
  resyncSeconds: number,
  seed: (env: OperatorEnvironment) => void,
): Promise<CoderObjectSuite> {
  const env = await operatorEnvironment({ operatorArgs: [`--coder-resync-period=${resyncSeconds}`] });
  seed(env);
  const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const { token } = await controlPlaneWithOperatorAccess(env, namespace);
  await entitlementsRead(env, namespace);
  return { env, core, token };
}

type WithConditions = KubeObject & { status?: { conditions?: readonly Condition[] } };

type Client<T extends WithConditions> = CustomResourceClient<T, { items: T[] }>;

/** `status reason` of a condition of the objects of a client (made once the suite runs) in one namespace, and waiting for one. */
export function conditionsOf<T extends WithConditions>(client: () => Client<T>, namespace: string) {
  const condition = async (name: string, type: string) => {
    const c = (await client().get(namespace, name)).status?.conditions?.find((x) => x.type === type);
    return c ? `${c.status} ${c.reason}` : 'absent';
  };
  const waitCondition = (name: string, type: string, expected: string, timeoutMs = 30_000) =>
    eventually(
      `${name}: ${type} ${expected}`,
      async () => {
        const seen = await condition(name, type);
        if (seen !== expected) throw new Error(`saw ${seen}`);
        return seen;
      },
      { timeoutMs },
    );
  /** `status reason` of each of the types, by type, for one deepEqual. */
  const conditions = async (name: string, types: string[]) =>
    Object.fromEntries(await Promise.all(types.map(async (type) => [type, await condition(name, type)] as const)));
  return { condition, conditions, waitCondition };
}

/**
 * Another tenant's namespace with its own control plane on the same Coder (the operator calls this one Coder
 * for every control plane, as control planes on one Coder database would), and the kubeconfig of `user`, who
 * may only create and get `resource` there.
 */
export async function tenantWithCreateRight(suite: CoderObjectSuite, namespace: string, resource: string, user: string): Promise<string> {
  await suite.core.createNamespace({ body: { metadata: { name: namespace } } });
  await controlPlaneWithOperatorAccess(suite.env, namespace);
  await grantOnly(suite.env.admin, namespace, user, resource, ['create', 'get']);
  return suite.env.cp.userKubeconfig(user);
}

/** The Warning Event of `reason` on object `name` in `namespace`, awaited. */
export function warningEvent(suite: CoderObjectSuite, namespace: string, name: string, reason: string) {
  return eventually(`a Warning Event ${reason} for ${namespace}/${name}`, async () =>
    (await suite.core.listNamespacedEvent({ namespace })).items.find(
      (e) => e.involvedObject.name === name && e.reason === reason && e.type === 'Warning',
    ),
  );
}

/**
 * `seconds` of quiet after one resync: the operator's writes in the namespace (every resource, control
 * planes included; lease renewals are in the operator's own namespace) and the calls Coder received.
 */
export async function quietPeriod(
  env: OperatorEnvironment,
  namespace: string,
  { resyncSeconds, seconds = 60 }: { resyncSeconds: number; seconds?: number },
): Promise<{ writes: string[]; calls: RecordedRequest[] }> {
  await sleep(resyncSeconds * 1000 + 2000);
  const since = new Date();
  const from = env.coder.requests.length;
  await sleep(seconds * 1000);
  const writes = (await operatorWrites(env.cp, since))
    .filter((e) => e.objectRef?.namespace === namespace)
    .map((e) => `${writeKind(e)} ${e.objectRef?.name}`);
  return { writes, calls: env.coder.requests.slice(from) };
}

/** The quiet-period check of a suite: no write to Kubernetes, and only reads of Coder (at the resync). */
export async function assertQuiet(env: OperatorEnvironment, namespace: string, resyncSeconds: number): Promise<void> {
  const { writes, calls } = await quietPeriod(env, namespace, { resyncSeconds });
  const changes = calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`);
  console.log(`quiet 60 s: ${writes.length} Kubernetes writes, ${calls.length} Coder calls (${changes.length} not GET)`);
  assert.deepEqual(writes, []);
  assert.deepEqual(changes, []);
}

/**
 * Deletes an object while Coder answers 500 to the DELETE at `coderPath`: Ready must say Deleting (and
 * Synced why) while the object stays; once Coder answers again the object goes.
 */
export async function deletionHeldByCoder<T extends WithConditions>(
  env: OperatorEnvironment,
  client: Client<T>,
  namespace: string,
  name: string,
  coderPath: string,
): Promise<void> {
  const { waitCondition } = conditionsOf(() => client, namespace);
  env.coder.failNext(1_000_000, 500, { pathPrefix: coderPath, method: 'DELETE' });
  try {
    await client.delete(namespace, name);
    await waitCondition(name, 'Synced', 'False CoderAPIError');
    await waitCondition(name, 'Ready', 'False Deleting');
    assert.ok((await client.get(namespace, name)).metadata?.deletionTimestamp, 'the object waits for Coder');
  } finally {
    env.coder.clearKnobs(coderPath);
  }
  await eventually(
    `${name} gone once Coder deletes`,
    async () => !(await client.list(namespace)).items.some((o) => o.metadata?.name === name),
    { timeoutMs: 60_000 },
  );
}

/**
 * Runs `body` while the CRD `crd` stores any spec (its spec schema replaced by one that keeps unknown
 * fields, as an install without validation would), then restores config/crd/bases.
 */
export async function withSpecUnvalidated(
  env: OperatorEnvironment,
  crd: string,
  probe: () => Promise<unknown>,
  body: () => Promise<void>,
): Promise<void> {
  const spec = '/spec/versions/0/schema/openAPIV3Schema/properties/spec';
  await kubectlOk(env.admin, [
    'patch',
    'crd',
    crd,
    '--type=json',
    `-p=${JSON.stringify([
      { op: 'remove', path: '/spec/versions/0/schema/openAPIV3Schema/x-kubernetes-validations' },
      { op: 'replace', path: spec, value: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    ])}`,
  ]);
  try {
    await body();
  } finally {
    await kubectlOk(env.admin, ['apply', '-f', `config/crd/bases/coder.com_${crd.split('.')[0]}.yaml`]);
    // The API server answers 429 while it re-initializes the storage of a changed CRD.
    await eventually('the restored CRD to serve again', probe);
  }
}

/** Asserts that no secret value reaches the operator log, the statuses or the Events of the namespace. */
export async function assertNoSecretsShown<T extends WithConditions>(
  suite: CoderObjectSuite,
  client: Client<T>,
  namespace: string,
  secretValues: string[],
): Promise<void> {
  const log = readFileSync(suite.env.operator.logFile, 'utf8');
  const statuses = JSON.stringify((await client.list(namespace)).items.map((o) => o.status));
  const events = JSON.stringify((await suite.core.listNamespacedEvent({ namespace })).items);
  for (const secret of [suite.token, ...secretValues]) {
    assert.ok(!log.includes(secret), 'a secret value in the operator log');
    assert.ok(!statuses.includes(secret), 'a secret value in a status');
    assert.ok(!events.includes(secret), 'a secret value in an Event');
  }
}

/** Coder's failures of a create and the Synced reason each gives; count covers the client's own retries. */
export const coderFailures: { status: number; count: number; reason: string }[] = [
  { status: 400, count: 1, reason: 'CoderValidationFailed' },
  { status: 403, count: 1, reason: 'Forbidden' },
  { status: 429, count: 3, reason: 'RateLimited' },
  { status: 500, count: 3, reason: 'CoderAPIError' },
];

/**
 * Creates `manifest` while Coder fails the POST to `createPath` as `row` says. The status write that
 * reports the failure brings the object back at once and a later attempt succeeds, so the Warning Event
 * is what stays; then the object must become Ready.
 */
export async function reportsFailureThenRecovers<T extends WithConditions>(
  suite: CoderObjectSuite,
  client: Client<T>,
  manifest: T,
  createPath: string,
  row: (typeof coderFailures)[number],
  resyncSeconds: number,
): Promise<void> {
  const { namespace, name } = manifest.metadata as { namespace: string; name: string };
  suite.env.coder.failNext(row.count, row.status, { pathPrefix: createPath, method: 'POST' });
  await client.create(manifest);
  await eventually(`a Warning Event ${row.reason} for ${name}`, async () =>
    (await suite.core.listNamespacedEvent({ namespace })).items.find(
      (e) => e.involvedObject.name === name && e.reason === row.reason && e.type === 'Warning',
    ),
  );
  await conditionsOf(() => client, namespace).waitCondition(name, 'Ready', 'True Available', (resyncSeconds + 30) * 1000);
}

/**
 * Under a CRD that stores any spec, an object whose `field` has the wrong type gets Ready False
 * InvalidSpec naming the field, and no request that changes Coder; it is then deleted.
 */
export async function reportsInvalidSpec<T extends WithConditions>(
  env: OperatorEnvironment,
  client: Client<T>,
  crd: string,
  manifest: T,
  field: string,
): Promise<void> {
  const { namespace, name } = manifest.metadata as { namespace: string; name: string };
  const { waitCondition } = conditionsOf(() => client, namespace);
  await withSpecUnvalidated(
    env,
    crd,
    () => client.list(namespace),
    async () => {
      const from = env.coder.requests.length;
      await eventually('the relaxed CRD to admit a value of the wrong type', () => client.create(manifest));
      await waitCondition(name, 'Ready', 'False InvalidSpec');
      const conditions = (await client.get(namespace, name)).status!.conditions!;
      const ready = conditions.find((c) => c.type === 'Ready')!;
      assert.match(ready.message, new RegExp(field.replaceAll('.', '\\.')));
      const stalled = conditions.find((c) => c.type === 'Stalled');
      assert.deepEqual(
        [stalled?.status, stalled?.reason, stalled?.message],
        ['True', 'InvalidSpec', ready.message],
        'only the user can fix it',
      );
      assert.deepEqual(
        env.coder.requests.slice(from).filter((r) => r.method !== 'GET'),
        [],
        'nothing sent to Coder',
      );
      await client.delete(namespace, name);
      await eventually(`${name} gone`, async () => !(await client.list(namespace)).items.some((o) => o.metadata?.name === name));
    },
  );
}

/**
 * The gates of a kind that needs AI Gateway, on object `name` that is Ready: not entitled → NotEntitled;
 * grace period → Entitled True GracePeriod; AI Gateway off in Coder → GatewayDisabledOnControlPlane; all
 * restored → Ready again.
 */
export async function reportsAIGatewayGates<T extends WithConditions>(
  env: OperatorEnvironment,
  client: Client<T>,
  namespace: string,
  name: string,
  resyncSeconds: number,
): Promise<void> {
  const { condition, waitCondition } = conditionsOf(() => client, namespace);
  const within = (resyncSeconds + 10) * 1000;
  env.coder.state.entitlements.features.aibridge = { entitlement: 'not_entitled', enabled: false };
  await waitCondition(name, 'Entitled', 'False FeatureNotEntitled', within);
  assert.equal(await condition(name, 'Ready'), 'False NotEntitled');
  assert.equal(await condition(name, 'Stalled'), 'True NotEntitled', 'a license only the user can change');
  env.coder.state.entitlements.features.aibridge = { entitlement: 'grace_period', enabled: true };
  await waitCondition(name, 'Entitled', 'True GracePeriod', within);
  env.coder.state.aiGatewayEnabled = false;
  await waitCondition(name, 'Ready', 'False GatewayDisabledOnControlPlane', within);
  env.coder.state.aiGatewayEnabled = true;
  env.coder.state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
  await waitCondition(name, 'Ready', 'True Available', within);
  assert.equal(await condition(name, 'Stalled'), 'absent');
}

/** Sets spec.deletionPolicy Orphan, waits until the operator has seen it, deletes the object and waits until it is gone. */
export async function deleteWithOrphanPolicy<T extends WithConditions & { status?: { observedGeneration?: number } }>(
  client: Client<T>,
  namespace: string,
  name: string,
): Promise<void> {
  await client.mergePatch(namespace, name, { spec: { deletionPolicy: 'Orphan' } });
  await eventually('the policy seen', async () => {
    const obj = await client.get(namespace, name);
    return obj.status?.observedGeneration === obj.metadata?.generation;
  });
  await client.delete(namespace, name);
  await eventually(`${name} gone`, async () => !(await client.list(namespace)).items.some((o) => o.metadata?.name === name));
}
