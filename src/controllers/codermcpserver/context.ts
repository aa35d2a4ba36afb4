// What the CoderMCPServer reconcile steps share: the context of every kind kept in Coder.
import type { CoderMCPServer } from '../../../generated/types/codermcpserver.ts';
import type { CoderObjectContext } from '../shared/coder-object-context.ts';

export type MCPServerContext = CoderObjectContext<CoderMCPServer>;
