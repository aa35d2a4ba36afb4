// What the server's handlers need of a resource, as k8s.io/apiserver's rest.Storage interfaces: its names,
// the verbs it serves and a method for each, answering Kubernetes objects or throwing an ApiStatusError.
import type { AggregatedObject } from '../convert/objects.ts';
import type { WatchListener } from './watch-hub.ts';

export interface ResourceNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
}

/** One subresource request: the item it is of, the parsed body of a create, and whether it is a dry run. */
export interface SubresourceRequest {
  namespace: string;
  name: string;
  body: Record<string, any> | undefined;
  query: URLSearchParams;
  accept: string | undefined;
  dryRun: boolean;
}

/** Where a streamed text answer goes: the headers on begin (or the first write), then each write at once. */
export interface TextSink {
  begin(): void;
  write(text: string): void;
  /** Aborts when the client went away or the response ran out of time. */
  readonly signal: AbortSignal;
}

export type SubresourceAnswer =
  { code: number; json: object } | { code: number; text: string } | { code: number; stream: (sink: TextSink) => Promise<void> };

/** A subresource (reference §2.13): its one verb, the kind discovery shows, and how it answers. */
export interface Subresource {
  verb: 'get' | 'create';
  kind: string;
  /** Whether the request may stay open (a followed log): not counted in flight, but against the follow limits. */
  longRunning?(query: URLSearchParams): boolean;
  serve(request: SubresourceRequest): Promise<SubresourceAnswer>;
}

export interface Storage {
  readonly names: ResourceNames;
  /**
   * The verbs served, as discovery lists them, for a resource that serves fewer than all: the handlers answer
   * 405 for any other before calling the storage. Unset: every verb that has a method below.
   */
  readonly verbs?: readonly string[];
  readonly subresources?: Record<string, Subresource>;
  list(namespace: string): Promise<AggregatedObject[]>;
  get(namespace: string, name: string): Promise<AggregatedObject>;
  /** Tells `listener` of the writes made through this server from now on; returns the unsubscribe. */
  watch?(listener: WatchListener): () => void;
  create?(namespace: string, body: Record<string, any>): Promise<AggregatedObject>;
  /** PUT, and patches once applied to the live object; `allowCreate` for server-side apply of a missing object. */
  update?(
    namespace: string,
    name: string,
    body: Record<string, any>,
    allowCreate: boolean,
  ): Promise<{ object: AggregatedObject; created: boolean }>;
  /** `deleted` false when Coder deletes in the background (a workspace's delete build). */
  delete?(namespace: string, name: string): Promise<{ object: AggregatedObject; deleted: boolean }>;
}
