// What the CoderAIProvider reconcile steps share: the context of every kind kept in Coder, and the claims that
// keep an adoption from taking over a provider another CoderAIProvider manages.
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import type { CoderIDClaims } from '../shared/coder-object/coder-id-claims.ts';
import type { CoderObjectContext } from '../shared/coder-object/context.ts';

export type ProviderContext = CoderObjectContext<CoderAIProvider> & { claims: CoderIDClaims<CoderAIProvider> };
