// What the server's handlers need of a resource, as k8s.io/apiserver's rest.Storage interfaces: its names,
// the verbs it serves and a method for each, answering Kubernetes objects or throwing an ApiStatusError.
import type { AggregatedResource } from '../../../generated/aggregated/resources.ts';
import type { AggregatedObject, AggregatedObjectMeta } from '../../../generated/aggregated/types.ts';
import type { WatchListener } from './watch-hub.ts';

/**
 * A written object as parsed from a request body: the shape of a kind with `Spec` its spec, every field
 * optional. Only unknown fields are checked before a storage sees it (field validation), not the types of the
 * known ones, so a storage reads the fields it uses with care.
 */
export type WrittenObject<Spec = Record<string, unknown>> = {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: Partial<AggregatedObjectMeta>;
  spec?: Partial<Spec>;
};

/** One subresource request: the item it is of, the parsed body of a create, and whether it is a dry run. */
export interface SubresourceRequest {
  namespace: string;
  name: string;
  body: WrittenObject | undefined;
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

/** A subresource: its one verb (discovery's is generated from the same schema), and how it answers. */
export interface Subresource {
  verb: 'get' | 'create';
  /** Whether the request may stay open (a followed log): not counted in flight, but against the follow limits. */
  longRunning?(query: URLSearchParams): boolean;
  serve(request: SubresourceRequest): Promise<SubresourceAnswer>;
}

export interface Storage {
  readonly names: AggregatedResource['names'];
  /**
   * The verbs served, for a resource that serves fewer than all (read only): the handlers answer 405 for any
   * other before anything else. Unset: each verb goes on to its handler.
   */
  readonly verbs?: readonly string[];
  readonly subresources?: Record<string, Subresource>;
  list(namespace: string): Promise<AggregatedObject[]>;
  get(namespace: string, name: string): Promise<AggregatedObject>;
  /** Tells `listener` of the writes made through this server from now on; returns the unsubscribe. */
  watch?(listener: WatchListener): () => void;
  create?(namespace: string, body: WrittenObject): Promise<AggregatedObject>;
  /** PUT, and patches once applied to the live object; `allowCreate` for server-side apply of a missing object. */
  update?(
    namespace: string,
    name: string,
    body: WrittenObject,
    allowCreate: boolean,
  ): Promise<{ object: AggregatedObject; created: boolean }>;
  /** `deleted` false when Coder deletes in the background (a workspace's delete build). */
  delete?(namespace: string, name: string): Promise<{ object: AggregatedObject; deleted: boolean }>;
}
