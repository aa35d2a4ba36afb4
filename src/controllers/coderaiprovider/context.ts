// What the CoderAIProvider reconcile steps share: the context of every kind kept in Coder.
import type { CoderAIProvider } from '../../../generated/types/coderaiprovider.ts';
import type { CoderObjectContext } from '../shared/coder-object-context.ts';

export type ProviderContext = CoderObjectContext<CoderAIProvider>;
