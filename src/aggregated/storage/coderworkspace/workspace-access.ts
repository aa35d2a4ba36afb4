// What the workspace storage lends the workspace subresources (start, stop, log).
import type { Schemas } from '../../../coder/api-types.ts';
import type { CoderTarget } from '../../backend.ts';

export type Transition = 'start' | 'stop';

/** What the workspace storage lends its subresources. */
export interface WorkspaceAccess {
  lookup(namespace: string, name: string): Promise<{ target: CoderTarget; ws: Schemas['Workspace'] }>;
  build(target: CoderTarget, name: string, id: string, transition: Transition): Promise<Schemas['WorkspaceBuild']>;
  call<T>(target: CoderTarget, name: string, fn: () => Promise<T>): Promise<T>;
  /** A build was queued: lists are stale and watchers hear of the workspace as it is now. */
  changed(namespace: string, ws: Schemas['Workspace']): void;
}
