// What the workspace storage lends the workspace subresources (start, stop, log).
import type { Schemas } from '../../../coder/api-types.ts';
import type { CoderTarget } from '../../backend.ts';
import type { CoderCall } from '../coder-errors.ts';

export type Transition = 'start' | 'stop';

/** What the workspace storage lends its subresources. */
export interface WorkspaceAccess {
  lookup(namespace: string, name: string): Promise<{ target: CoderTarget; ws: Schemas['Workspace'] }>;
  build(target: CoderTarget, name: string, id: string, transition: Transition): Promise<Schemas['WorkspaceBuild']>;
  readonly call: CoderCall;
  /** A build was queued: lists are stale and watchers hear of the workspace as it is now. */
  changed(namespace: string, ws: Schemas['Workspace']): void;
}
