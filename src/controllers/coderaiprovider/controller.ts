// CoderAIProvider controller wiring: the shared wiring of the kinds kept in Coder, with the Secrets spec names,
// and the kind itself, so that an object kept from adopting comes back once the object that manages it is gone.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import { CoderIDClaims } from '../shared/coder-object/coder-id-claims.ts';
import { coderObjectContext, coderObjectController } from '../shared/coder-object/context.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import type { ProviderContext } from './context.ts';
import { credentialRefs } from './desired.ts';

export const setup: ControllerSetup = (manager, deps) => {
  const base = coderObjectContext<CoderAIProvider>(manager, deps, coderAIProviderResource);
  const ctx: ProviderContext = { ...base, claims: new CoderIDClaims(base.caches.objects) };
  return coderObjectController(
    manager,
    'coderaiprovider',
    ctx,
    async () => (await import('./reconcile.ts')).providerKind,
    (p) => credentialRefs(p).map((r) => r.ref.name),
    ctx.claims.releasedWatch(),
  );
};
