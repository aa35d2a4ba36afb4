// A token Secret that the control plane controls but that lacks the operator's marks: made by an earlier
// version (the Go original wrote none), or forged by someone who copied the control plane's UID into an
// owner reference. Only the first holds a token that Coder's database knows as the operator's, so that
// is what decides; such a Secret gets the marks and is used from then on. Nothing is written to any
// other.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { operatorTokenName } from '../../coder/operator-access/token-name.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { eventTarget } from '../shared/event-target.ts';
import { operatorTokenMarks } from '../shared/operator-token-marks.ts';
import type { ControlPlaneContext } from './context.ts';
import { readToken } from './operator-token.ts';

/** The Secret with the marks when it held a live operator token; undefined when it is not to be trusted. */
export async function adoptEarlierTokenSecret(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  secret: V1Secret,
  postgresURL: string,
  signal: AbortSignal | undefined,
): Promise<V1Secret | undefined> {
  const token = readToken(secret);
  if (!token) return undefined;
  const { live } = await ctx.operatorAccess.check({
    postgresURL,
    tokenName: operatorTokenName(cp.metadata.namespace!, cp.metadata.name!),
    token,
    ...(signal ? { signal } : {}),
  });
  if (!live) return undefined;
  const marked = await ctx.writer.mergePatch<V1Secret>(builtinResources.secret, secret, { metadata: operatorTokenMarks(cp) });
  await ctx.events.record(
    eventTarget(cp),
    'Normal',
    'OperatorTokenSecretMarked',
    'BootstrapOperatorAccess',
    `Secret "${cp.metadata.namespace}/${secret.metadata?.name}" holds this control plane's live operator token from an earlier ` +
      "version; it now carries the operator's marks.",
  );
  return marked;
}
