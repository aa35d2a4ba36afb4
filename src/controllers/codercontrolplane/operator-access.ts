// Operator access: the coder-k8s-operator user and token in Coder's database, kept in the operator
// token Secret under the ownership rules of docs/how-to/deploy-controller.md (operator-token.ts). The database URL is read again on
// every reconcile, so rotated credentials are used without a restart.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { OperatorAccessError } from '../../coder/operator-access/errors.ts';
import { operatorTokenName } from '../../coder/operator-access/token-name.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { pgConnectionUrlEnv } from './desired/env.ts';
import { eventTarget, warnOnNewProblem } from '../shared/event-target.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import type { ControlPlaneContext } from './context.ts';
import type { ControlPlaneOutcome } from './status.ts';
import {
  accessFailed,
  accessReady,
  databaseURLUnavailable,
  type AccessCondition,
  operatorAccessConditionType,
  tokenSecretNotOwned,
  tokenSecretWriteFailed,
} from './operator-access-condition.ts';
import { adoptTokenSecret, mayAdopt } from './earlier-token-secret.ts';
import { chooseOperatorRoles, describeChoice, ownerNeeds, sameDatabase, type RoleChoice } from './operator-roles.ts';
import { resolveDatabaseSecret } from './database-secret.ts';
import {
  buildTokenSecret,
  foreignAnnotations,
  foreignAnnotationsCondition,
  notOwnedRecheckMs,
  ownershipCondition,
  readToken,
  tokenOwnershipConditionType,
  tokenSecretOwnership,
  tokenWritePatch,
  type OwnershipCondition,
} from './operator-token.ts';
import { operatorTokenKey, operatorTokenSecretName } from '../../controlplane/endpoints.ts';

export const operatorAccessRetryMs = 30_000;
const day = 24 * 60 * 60;
/**
 * The operator token lives 30 days, counted from its issue (Coder may push its expiry on as it is used:
 * src/coder/operator-access/api-key-rows.ts), and is replaced once less than 10 remain: a copy that leaks (a Secret
 * backup, a log of someone's kubectl) is good for weeks, not the year the Go original gave it. The
 * controller looks at least daily (renewalCheckMs), so the Secret always holds a token with 9 or more days
 * left, and a day of operator downtime or a few failed checks never lets it lapse. Much shorter would
 * rotate the Secret under its readers (provisioners, the aggregated API server) often for little gain.
 */
export const tokenLifetimeSeconds = 30 * day;
export const tokenRenewBeforeSeconds = 10 * day;
const renewalCheckMs = day * 1000;

/** Sets operatorAccessReady, operatorRole and operatorTokenSecretRef, and OperatorTokenSecretOwned (removed while disabled). */
export interface OperatorAccessOutcome extends ControlPlaneOutcome {
  /** The token, for the Coder calls of this reconcile. */
  token?: string;
}

/** Both conditions of this step; undefined removes them (operator access turned off). */
const conditions = (ownership: OwnershipCondition | undefined, access: AccessCondition | undefined) => ({
  [tokenOwnershipConditionType]: ownership,
  [operatorAccessConditionType]: access,
});

/** Where the bootstrap finds the PostgreSQL URL: spec.database (already resolved), or the legacy extraEnv entry. */
export async function postgresURL(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  fromDatabaseSecret: string | undefined,
): Promise<string | undefined> {
  if (cp.spec?.database) return fromDatabaseSecret;
  const entries = (cp.spec?.extraEnv ?? []).filter((e) => e.name === pgConnectionUrlEnv);
  if (entries.length !== 1) return undefined;
  const entry = entries[0]!;
  if (entry.value?.trim()) return entry.value.trim();
  const ref = entry.valueFrom?.secretKeyRef;
  if (!ref?.name?.trim() || !ref.key?.trim()) return undefined;
  const secret = ctx.caches.secrets.get(cp.metadata.namespace, ref.name.trim());
  return secretValue(secret, ref.key.trim())?.trim() || undefined;
}

const notReady = { operatorAccessReady: false, operatorRole: undefined, operatorTokenSecretRef: undefined };

export async function reconcileOperatorAccess(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  databaseURL: string | undefined,
  signal?: AbortSignal,
): Promise<OperatorAccessOutcome> {
  if (cp.spec?.operatorAccess?.disabled) return disableOperatorAccess(ctx, cp, databaseURL, signal);
  const name = operatorTokenSecretName(cp);
  const ns = cp.metadata.namespace!;
  const tokenName = operatorTokenName(ns, cp.metadata.name!);
  // The cache may not show the Secret an earlier reconcile created a moment ago (its create event wakes no
  // reconcile): only the API server can tell that it is absent, and a second create would fail.
  let secret =
    (ctx.caches.secrets.get(ns, name) as V1Secret | undefined) ?? (await ctx.writer.get<V1Secret>(builtinResources.secret, ns, name));
  let ownership = tokenSecretOwnership(cp, secret);
  let ownershipCond = ownershipCondition(cp, ownership, secret);
  // The UID of a Secret this reconcile created or adopted: recorded whatever happens next.
  let recordedUID: string | undefined;
  const withUID = <T extends object>(status: T) => (recordedUID ? { ...status, operatorTokenSecretUID: recordedUID } : status);
  // One Warning per new problem: a retry that meets the same problem says nothing new.
  const failed = async (access: AccessCondition, requeueAfterMs = operatorAccessRetryMs): Promise<OperatorAccessOutcome> => {
    await warnOnNewProblem(ctx.events, cp, ownershipCond, 'UseOperatorTokenSecret');
    await warnOnNewProblem(ctx.events, cp, access, 'BootstrapOperatorAccess');
    return { status: withUID(notReady), conditions: conditions(ownershipCond, access), requeueAfterMs };
  };
  const refuseSecret = async () => {
    // The ownership condition names the Secret; OperatorAccessReady only points to it.
    await warnOnNewProblem(ctx.events, cp, ownershipCond, 'UseOperatorTokenSecret');
    return { status: withUID(notReady), conditions: conditions(ownershipCond, tokenSecretNotOwned()), requeueAfterMs: notOwnedRecheckMs };
  };
  /** A failure of Coder's database is a condition; anything else goes to the queue. */
  const databaseStep = async <T>(step: () => Promise<T>): Promise<{ value: T } | { failure: OperatorAccessOutcome }> => {
    try {
      return { value: await step() };
    } catch (err) {
      if (signal?.aborted || !(err instanceof OperatorAccessError)) throw err;
      return { failure: await failed(accessFailed(err)) };
    }
  };
  if (ownership === 'foreign') return refuseSecret();
  const url = await postgresURL(ctx, cp, databaseURL);
  if (ownership === 'earlier' || ownership === 'unrecorded' || ownership === 'replaced') {
    const may = await databaseStep(() => mayAdopt(ctx, cp, ownership as 'earlier' | 'unrecorded' | 'replaced', secret!, url, signal));
    if ('failure' in may) return may.failure;
    if (!may.value) return url ? refuseSecret() : failed(databaseURLUnavailable(cp));
    secret = await adoptTokenSecret(ctx, cp, secret!, ownership === 'earlier' ? 'earlier version' : 'live token');
    recordedUID = secret.metadata?.uid;
    ownership = 'recorded';
    ownershipCond = ownershipCondition(cp, ownership, secret);
  }
  if (ownership === 'recorded') {
    const foreign = foreignAnnotations(cp, secret!);
    if (foreign.length) {
      ownershipCond = foreignAnnotationsCondition(cp, foreign);
      // The token in it may have been copied already: it stops working, and no new one takes its place there.
      if (url) {
        const revoked = await databaseStep(() => ctx.operatorAccess.revoke({ postgresURL: url, tokenName, ...(signal ? { signal } : {}) }));
        if ('failure' in revoked) return revoked.failure;
        if (revoked.value.deleted > 0) {
          await ctx.events.record(
            eventTarget(cp),
            'Warning',
            'OperatorTokenRevoked',
            'BootstrapOperatorAccess',
            `Revoked the operator token held in Secret "${ns}/${name}": the Secret carries annotations that the operator did not set (${foreign.join(', ')}).`,
          );
        }
      }
      return refuseSecret();
    }
  }
  if (!url) return failed(databaseURLUnavailable(cp));
  const existingToken = ownership === 'recorded' ? readToken(secret!) : undefined;
  // The Secret is written inside the bootstrap's transaction: a token whose Secret write fails is rolled back.
  let storeError: unknown;
  const store = async (token: string) => {
    try {
      if (ownership === 'absent') {
        // Create, never apply: should a Secret of this name appear meanwhile, the create fails instead of adopting it.
        const created = await ctx.writer.create(builtinResources.secret, buildTokenSecret(cp, token));
        recordedUID = created.metadata?.uid;
        // From here the status describes the Secret just created, not the cache's view from before it.
        ownershipCond = ownershipCondition(cp, 'recorded');
      } else {
        await ctx.writer.mergePatch(builtinResources.secret, secret!, tokenWritePatch(cp, token));
      }
    } catch (err) {
      storeError = err;
      throw err;
    }
  };
  const choice = await roleChoice(ctx, cp, url);
  let rotated: boolean;
  let token: string;
  let expiresAt: Date;
  try {
    ({ token, rotated, expiresAt } = await ctx.operatorAccess.ensure({
      postgresURL: url,
      existingToken,
      tokenName,
      lifetimeSeconds: tokenLifetimeSeconds,
      renewBeforeSeconds: tokenRenewBeforeSeconds,
      roles: choice.roles,
      store,
      ...(signal ? { signal } : {}),
    }));
  } catch (err) {
    if (signal?.aborted) throw err;
    return failed(storeError !== undefined ? tokenSecretWriteFailed(`${ns}/${name}`, storeError) : accessFailed(err));
  }
  if (rotated && ownership === 'absent') {
    await ctx.events.record(
      eventTarget(cp),
      'Normal',
      'OperatorTokenCreated',
      'BootstrapOperatorAccess',
      `Created the operator token Secret "${ns}/${name}".`,
    );
  } else if (rotated) {
    await ctx.events.record(
      eventTarget(cp),
      'Normal',
      'OperatorTokenRotated',
      'BootstrapOperatorAccess',
      `Replaced the operator token in Secret "${ns}/${name}": the previous one was missing, invalid, expired or due for renewal (${(tokenLifetimeSeconds - tokenRenewBeforeSeconds) / day} of its ${tokenLifetimeSeconds / day} days passed).`,
    );
  }
  return {
    status: {
      operatorAccessReady: true,
      operatorRole: choice.neededBy.length ? 'owner' : 'organization-admin',
      operatorTokenSecretRef: { name, key: operatorTokenKey },
      operatorTokenSecretUID: recordedUID ?? secret!.metadata!.uid!,
    },
    conditions: conditions(ownershipCond, accessReady(`${ns}/${name}`, describeChoice(choice))),
    // Look again before the renewal window opens, and at least daily.
    requeueAfterMs: Math.max(1_000, Math.min(renewalCheckMs, expiresAt.getTime() - tokenRenewBeforeSeconds * 1000 - ctx.now().getTime())),
    token,
  };
}

/** The Coder roles the operator user needs for this control plane and every other that reaches the same database. */
async function roleChoice(ctx: ControlPlaneContext, cp: CoderControlPlane, url: string): Promise<RoleChoice> {
  const dependentsIn = (ns: string | undefined) =>
    new Map([...ctx.caches.ownerDependents].map(([kind, cache]) => [kind, cache.list(ns)] as const));
  const sharing = [];
  for (const other of ctx.caches.controlPlanes.list()) {
    if (other.metadata.uid === cp.metadata.uid || other.metadata.deletionTimestamp || other.spec?.operatorAccess?.disabled) continue;
    // Only another control plane that needs owner can change the choice: its URL is resolved only then.
    const dependents = dependentsIn(other.metadata.namespace);
    if (!ownerNeeds(other, dependents).length) continue;
    const ref = other.spec?.database?.connectionSecretRef;
    const fromSecret = ref ? resolveDatabaseSecret(other, ctx.caches.secrets.get(other.metadata.namespace, ref.name)).url : undefined;
    const otherURL = await postgresURL(ctx, other, fromSecret);
    if (otherURL && sameDatabase(url, otherURL)) sharing.push({ cp: other, dependents });
  }
  return chooseOperatorRoles(cp, dependentsIn(cp.metadata.namespace), sharing);
}

/** spec.operatorAccess.disabled: delete the Secret this control plane owns and revoke the token in Coder's database. */
async function disableOperatorAccess(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  databaseURL: string | undefined,
  signal: AbortSignal | undefined,
): Promise<OperatorAccessOutcome> {
  const name = operatorTokenSecretName(cp);
  const ns = cp.metadata.namespace!;
  const secret = ctx.caches.secrets.get(ns, name) as V1Secret | undefined;
  const ownership = tokenSecretOwnership(cp, secret);
  const owned = ownership === 'recorded' || ownership === 'earlier';
  // By UID: a Secret that took its name since the cache saw it is not this one, and stays.
  if (owned) await ctx.writer.deleteExactly(builtinResources.secret, secret!);
  const cleanupRequired = owned || Boolean(cp.status?.operatorTokenSecretRef);
  const done = { status: { ...notReady, operatorTokenSecretUID: undefined }, conditions: conditions(undefined, undefined) };
  const url = await postgresURL(ctx, cp, databaseURL);
  const retry = {
    status: { operatorAccessReady: false, operatorRole: undefined, operatorTokenSecretRef: { name, key: operatorTokenKey } },
    conditions: conditions(undefined, undefined),
    requeueAfterMs: operatorAccessRetryMs,
  };
  if (!url) return cleanupRequired ? retry : done;
  try {
    await ctx.operatorAccess.revoke({
      postgresURL: url,
      tokenName: operatorTokenName(ns, cp.metadata.name!),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    await ctx.events.record(eventTarget(cp), 'Warning', 'OperatorAccessFailed', 'RevokeOperatorAccess', (err as Error).message);
    return retry;
  }
  return done;
}
