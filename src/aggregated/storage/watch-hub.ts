// Watch events of one resource in this process: writes made through this server (ADDED, MODIFIED,
// DELETED) and workspaces seen gone after a delete. No replay: a watch sees what happens after it starts.
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchListener = (type: WatchEventType, obj: AggregatedObject) => void;

export class WatchHub {
  private readonly listeners = new Set<WatchListener>();

  subscribe(listener: WatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(type: WatchEventType, obj: AggregatedObject): void {
    for (const listener of this.listeners) listener(type, structuredClone(obj));
  }

  get size(): number {
    return this.listeners.size;
  }
}
