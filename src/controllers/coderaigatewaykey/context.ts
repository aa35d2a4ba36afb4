// What the CoderAIGatewayKey reconcile steps share: the context of every kind kept in Coder, and keys
// minted but not yet written.
import type { CoderAIGatewayKey } from '../../../generated/types/coderaigatewaykey.ts';
import type { CoderObjectContext } from '../shared/coder-object/context.ts';

/** A key Coder returned that not every destination holds yet; Coder never shows it again, so it stays in memory only. */
export interface PendingKey {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
  rotation: number;
}

export interface GatewayKeyContext extends CoderObjectContext<CoderAIGatewayKey> {
  /** By object UID. */
  pending: Map<string, PendingKey>;
}
