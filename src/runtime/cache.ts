// The read side controllers use: one informer, or one per watched namespace behind the same interface.
import type { Informer, IndexFunc, InformerHandlers, KubeObject } from './informer.ts';

export interface Cache<T extends KubeObject> {
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string): T[];
  byIndex(index: string, value: string): T[];
  addIndex(index: string, fn: IndexFunc<T>): void;
  /** Why an index function threw on this object, if one did (the object is cached and handled anyway). */
  indexFailure?(namespace: string | undefined, name: string): string | undefined;
  addHandlers(handlers: InformerHandlers<T>): void;
  /** Puts an object read live in place of the cached version of the same resourceVersion (Informer.fill). */
  fill?(obj: T): boolean;
  hasSynced(): boolean;
  waitForSync(): Promise<void>;
  isStale(): boolean;
  start(): void;
  stop(): Promise<void>;
}

/** Several namespaces' informers of one kind as one cache. */
export class MultiNamespaceCache<T extends KubeObject> implements Cache<T> {
  private readonly informers: Map<string, Informer<T>>;

  constructor(informers: Map<string, Informer<T>>) {
    this.informers = informers;
  }

  private of(namespace: string | undefined): Informer<T>[] {
    if (namespace === undefined) return [...this.informers.values()];
    const one = this.informers.get(namespace);
    return one ? [one] : [];
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return namespace === undefined ? undefined : this.informers.get(namespace)?.get(namespace, name);
  }

  list(namespace?: string): T[] {
    return this.of(namespace).flatMap((i) => i.list(namespace));
  }

  byIndex(index: string, value: string): T[] {
    return this.of(undefined).flatMap((i) => i.byIndex(index, value));
  }

  addIndex(index: string, fn: IndexFunc<T>): void {
    for (const i of this.informers.values()) i.addIndex(index, fn);
  }

  indexFailure(namespace: string | undefined, name: string): string | undefined {
    return namespace === undefined ? undefined : this.informers.get(namespace)?.indexFailure(namespace, name);
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    for (const i of this.informers.values()) i.addHandlers(handlers);
  }

  fill(obj: T): boolean {
    const ns = obj.metadata?.namespace;
    return ns !== undefined && (this.informers.get(ns)?.fill(obj) ?? false);
  }

  hasSynced(): boolean {
    return this.of(undefined).every((i) => i.hasSynced());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.of(undefined).map((i) => i.waitForSync()));
  }

  isStale(): boolean {
    return this.of(undefined).some((i) => i.isStale());
  }

  start(): void {
    for (const i of this.informers.values()) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.of(undefined).map((i) => i.stop()));
  }
}
