// Operator access: the coder-k8s-operator user and token in Coder's database, kept in the operator
// token Secret under the seed's ownership rules. The database URL is read again on every reconcile,
// so rotated credentials are used without a restart.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane, CoderControlPlaneStatus } from '../../../generated/types/codercontrolplane.ts';
import { operatorTokenName } from '../../coder/operator-access/token-name.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { builtinResources, collectionPath, objectPath } from '../../runtime/resource.ts';
import { pgConnectionUrlEnv } from './coder-env.ts';
import { eventTarget, type ControlPlaneContext } from './context.ts';
import {
  buildTokenSecret, notOwnedRecheckMs, ownershipCondition, readToken, tokenKey, tokenSecretName, tokenSecretOwnership,
} from './operator-token.ts';

export const operatorAccessRetryMs = 30_000;
export const tokenLifetimeSeconds = 365 * 24 * 60 * 60;

export interface OperatorAccessOutcome {
  status: Pick<CoderControlPlaneStatus, 'operatorAccessReady' | 'operatorTokenSecretRef'>;
  /** OperatorTokenSecretOwned, or undefined when operator access is disabled (the condition is removed). */
  ownership?: ConditionInput;
  /** The token, for the Coder calls of this reconcile. */
  token?: string;
  requeueAfterMs?: number;
}

/** Where the bootstrap finds the PostgreSQL URL: spec.database (already resolved), or the legacy extraEnv entry. */
export async function postgresURL(ctx: ControlPlaneContext, cp: CoderControlPlane, fromDatabaseSecret: string | undefined): Promise<string | undefined> {
  if (cp.spec?.database) return fromDatabaseSecret;
  const entries = (cp.spec?.extraEnv ?? []).filter((e) => e.name === pgConnectionUrlEnv);
  if (entries.length !== 1) return undefined;
  const entry = entries[0]!;
  if (entry.value?.trim()) return entry.value.trim();
  const ref = entry.valueFrom?.secretKeyRef;
  if (!ref?.name?.trim() || !ref.key?.trim()) return undefined;
  const secret = ctx.caches.secrets.get(cp.metadata.namespace, ref.name.trim());
  const encoded = secret?.data?.[ref.key.trim()];
  const value = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8').trim();
  return value || undefined;
}

const notReady = { operatorAccessReady: false, operatorTokenSecretRef: undefined };

export async function reconcileOperatorAccess(ctx: ControlPlaneContext, cp: CoderControlPlane, databaseURL: string | undefined): Promise<OperatorAccessOutcome> {
  if (cp.spec?.operatorAccess?.disabled) return disableOperatorAccess(ctx, cp, databaseURL);
  const name = tokenSecretName(cp);
  const ns = cp.metadata.namespace!;
  const secret = ctx.caches.secrets.get(ns, name) as V1Secret | undefined;
  const ownership = tokenSecretOwnership(cp, secret);
  const ownershipCond = ownershipCondition(cp, ownership);
  if (ownership === 'foreign') {
    if (cp.status?.operatorTokenSecretRef || cp.status?.operatorAccessReady !== false) {
      await ctx.events.record(eventTarget(cp), 'Warning', 'TokenSecretNotOwned', 'UseOperatorTokenSecret', ownershipCond.message);
    }
    return { status: notReady, ownership: ownershipCond, requeueAfterMs: notOwnedRecheckMs };
  }
  const url = await postgresURL(ctx, cp, databaseURL);
  if (!url) return { status: notReady, ownership: ownershipCond, requeueAfterMs: operatorAccessRetryMs };
  const existingToken = ownership === 'owned' ? readToken(secret!) : undefined;
  let token: string;
  let rotated: boolean;
  try {
    ({ token, rotated } = await ctx.operatorAccess.ensure({
      postgresURL: url, existingToken, tokenName: operatorTokenName(ns, cp.metadata.name!), lifetimeSeconds: tokenLifetimeSeconds,
    }));
  } catch (err) {
    await ctx.events.record(eventTarget(cp), 'Warning', 'OperatorAccessFailed', 'BootstrapOperatorAccess', (err as Error).message);
    return { status: notReady, ownership: ownershipCond, requeueAfterMs: operatorAccessRetryMs };
  }
  if (ownership === 'absent') {
    // Create, never apply: should a Secret of this name appear meanwhile, the create fails instead of adopting it.
    await ctx.http.json('POST', collectionPath(builtinResources.secret, ns), { body: buildTokenSecret(cp, token) });
    await ctx.events.record(eventTarget(cp), 'Normal', 'OperatorTokenCreated', 'BootstrapOperatorAccess',
      `Created the operator token Secret "${ns}/${name}".`);
  } else if (rotated || existingToken !== token) {
    await ctx.http.json('PATCH', objectPath(builtinResources.secret, ns, name), {
      contentType: 'application/merge-patch+json',
      body: { metadata: { resourceVersion: secret!.metadata!.resourceVersion }, data: { [tokenKey]: Buffer.from(token).toString('base64') } },
    });
    await ctx.events.record(eventTarget(cp), 'Normal', 'OperatorTokenRotated', 'BootstrapOperatorAccess',
      `Replaced the operator token in Secret "${ns}/${name}": the previous one was missing, invalid or expired.`);
  }
  return { status: { operatorAccessReady: true, operatorTokenSecretRef: { name, key: tokenKey } }, ownership: ownershipCond, token };
}

/** spec.operatorAccess.disabled: delete the Secret this control plane owns and revoke the token in Coder's database. */
async function disableOperatorAccess(ctx: ControlPlaneContext, cp: CoderControlPlane, databaseURL: string | undefined): Promise<OperatorAccessOutcome> {
  const name = tokenSecretName(cp);
  const ns = cp.metadata.namespace!;
  const secret = ctx.caches.secrets.get(ns, name) as V1Secret | undefined;
  const owned = tokenSecretOwnership(cp, secret) === 'owned';
  if (owned) await ctx.applier.delete(builtinResources.secret, ns, name);
  const cleanupRequired = owned || Boolean(cp.status?.operatorTokenSecretRef);
  const url = await postgresURL(ctx, cp, databaseURL);
  const retry = { status: { operatorAccessReady: false, operatorTokenSecretRef: { name, key: tokenKey } }, requeueAfterMs: operatorAccessRetryMs };
  if (!url) return cleanupRequired ? retry : { status: notReady };
  try {
    await ctx.operatorAccess.revoke({ postgresURL: url, tokenName: operatorTokenName(ns, cp.metadata.name!) });
  } catch (err) {
    await ctx.events.record(eventTarget(cp), 'Warning', 'OperatorAccessFailed', 'RevokeOperatorAccess', (err as Error).message);
    return retry;
  }
  return { status: notReady };
}
