// Deletion of a CoderAIProvider: the provider this object created or adopted (status.coderID) is deleted in
// Coder (a soft delete there) unless spec.deletionPolicy is Orphan or another live CoderAIProvider records it.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.ts';
import { finalizeCoderObject } from '../shared/coder-object/finalize.ts';
import type { ProviderContext } from './context.ts';
import { providerName } from './desired.ts';

export function finalizeProvider(ctx: ProviderContext, p: CoderAIProvider, { signal }: ReconcileContext): Promise<ReconcileResult | void> {
  const recorded = p.status?.coderID ?? ctx.claims.createdBy(p);
  // Two objects can record one id (two operator processes, or objects from before the claims): the other keeps it.
  const coderID = recorded && !ctx.claims.holderOf(p, recorded) ? recorded : undefined;
  return finalizeCoderObject(
    ctx,
    p,
    {
      resource: coderAIProviderResource,
      ids: coderID ? [coderID] : [],
      what: `the provider "${providerName(p)}"`,
      action: 'DeleteAIProvider',
      deletedReason: 'ProviderDeleted',
      deleteInCoder: async (client, id, s) => {
        await client.request('DELETE', '/api/v2/ai/providers/{aiProvider}', { params: { aiProvider: id }, signal: s });
      },
      forget: () => ctx.claims.release(p),
    },
    signal,
  );
}
