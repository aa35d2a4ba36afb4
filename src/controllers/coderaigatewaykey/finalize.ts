// Deletion of a CoderAIGatewayKey: its keys in Coder (current, previous, and one minted but not yet
// recorded) are deleted unless spec.deletionPolicy is Orphan; Secrets the operator created for it go by
// garbage collection either way.
import { coderAIGatewayKeyResource } from '../../../generated/clients/coderaigatewaykey.ts';
import type { CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.ts';
import { finalizeCoderObject } from '../shared/coder-object/finalize.ts';
import type { GatewayKeyContext } from './context.ts';
import { deleteKey } from './sync.ts';

export function finalizeGatewayKey(
  ctx: GatewayKeyContext,
  k: CoderAIGatewayKey,
  { signal }: ReconcileContext,
): Promise<ReconcileResult | void> {
  const uid = k.metadata.uid ?? '';
  const pending = ctx.pending.get(uid);
  return finalizeCoderObject(
    ctx,
    k,
    {
      resource: coderAIGatewayKeyResource,
      ids: [k.status?.coderID, k.status?.previousKey?.coderID, pending?.id].filter((id): id is string => !!id),
      what: `the AI Gateway key "${k.status?.coderKeyName ?? ''}"`,
      action: 'DeleteAIGatewayKey',
      deletedReason: 'KeyDeleted',
      deleteInCoder: deleteKey,
      forget: () => ctx.pending.delete(uid),
    },
    signal,
  );
}
