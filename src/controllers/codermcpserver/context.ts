// What the CoderMCPServer reconcile steps share: the context of every kind kept in Coder, and the claims that
// keep an adoption from taking over a config another CoderMCPServer manages.
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import type { CoderIDClaims } from '../shared/coder-object/coder-id-claims.ts';
import type { CoderObjectContext } from '../shared/coder-object/context.ts';

export type MCPServerContext = CoderObjectContext<CoderMCPServer> & { claims: CoderIDClaims<CoderMCPServer> };
