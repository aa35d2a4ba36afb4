// Adopting a token Secret that the control plane controls but whose UID its status does not record: one an
// earlier version (or the Go original) used, which the status reference shows; or one this version created
// whose status write was lost, which only the operator's live token in it can show. A Secret forged with the
// owner reference and the operator's marks has neither (whoever could copy a live token into it could read
// it already; the foreign-annotation rule still keeps new tokens from being copied on). Adopting sets the
// operator's marks and records the UID; the token in it is then read and, when expired or invalid, replaced
// (the deploy guide's promise: an owned Secret is read and updated).
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { operatorTokenName } from '../../coder/operator-access/token-name.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ControlPlaneContext } from './context.ts';
import { ownMarks, readToken, type TokenSecretOwnership } from './operator-token.ts';

/** Whether a Secret without a recorded UID may be adopted: always when an earlier version used it, else only with a live token. */
export async function mayAdopt(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  ownership: Extract<TokenSecretOwnership, 'earlier' | 'unrecorded' | 'replaced'>,
  secret: V1Secret,
  postgresURL: string | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (ownership === 'earlier') return true;
  const token = readToken(secret);
  if (!token || !postgresURL) return false;
  const { live } = await ctx.operatorAccess.check({
    postgresURL,
    tokenName: operatorTokenName(cp.metadata.namespace!, cp.metadata.name!),
    token,
    ...(signal ? { signal } : {}),
  });
  return live;
}

/** Sets the operator's marks on the Secret (its resourceVersion as read: a changed Secret is a 409) and says so. */
export async function adoptTokenSecret(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  secret: V1Secret,
  why: 'earlier version' | 'live token',
): Promise<V1Secret> {
  const adopted = await ctx.writer.mergePatch<V1Secret>(builtinResources.secret, secret, { metadata: ownMarks(cp) });
  await ctx.events.record(
    eventTarget(cp),
    'Normal',
    'OperatorTokenSecretAdopted',
    'BootstrapOperatorAccess',
    `Secret "${cp.metadata.namespace}/${secret.metadata?.name}" (UID ${adopted.metadata?.uid}) is this control plane's operator token ` +
      (why === 'earlier version'
        ? 'Secret that an earlier version used (status.operatorTokenSecretRef)'
        : "Secret: it holds this control plane's live operator token") +
      '; its UID is now recorded in status.operatorTokenSecretUID.',
  );
  return adopted;
}
