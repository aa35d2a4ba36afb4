// What the router needs of a resource: its names and the verbs, each answering Kubernetes objects or
// throwing an ApiStatusError.
import type { AggregatedObject } from '../convert/objects.ts';
import { badRequest, conflict } from '../status.ts';
import type { WatchHub } from './watch-hub.ts';

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
  names: ResourceNames;
  /** The verbs served, as discovery lists them; every verb of a read-write resource when unset. */
  verbs?: string[];
  subresources?: Record<string, Subresource>;
  hub: WatchHub;
  list(namespace: string): Promise<AggregatedObject[]>;
  get(namespace: string, name: string): Promise<AggregatedObject>;
  create(namespace: string, body: Record<string, any>): Promise<AggregatedObject>;
  /** PUT, and patches once applied to the live object; `allowCreate` for server-side apply of a missing object. */
  update(
    namespace: string,
    name: string,
    body: Record<string, any>,
    allowCreate: boolean,
  ): Promise<{ object: AggregatedObject; created: boolean }>;
  /** `deleted` false when Coder deletes in the background (a workspace's delete build). */
  delete(namespace: string, name: string): Promise<{ object: AggregatedObject; deleted: boolean }>;
}

/** The checks the Go generic handler makes before storage on create (reference R17, §2.6). */
export function checkCreateMeta(body: Record<string, any>, namespace: string): string {
  const name = body?.metadata?.name;
  if (typeof name !== 'string' || name === '') throw badRequest('metadata.name must not be empty');
  const ns = body.metadata.namespace;
  if (ns && ns !== namespace) throw badRequest(`metadata.namespace "${ns}" must match request namespace "${namespace}"`);
  return name;
}

/** Name, namespace and resourceVersion checks of an update (reference §2.6). */
export function checkUpdateMeta(body: Record<string, any>, namespace: string, name: string, current: AggregatedObject): void {
  const bodyName = body?.metadata?.name;
  if (bodyName && bodyName !== name) throw badRequest(`updated object metadata.name "${bodyName}" must match request name "${name}"`);
  const ns = body?.metadata?.namespace;
  if (ns && ns !== namespace) throw badRequest(`metadata.namespace "${ns}" does not match request namespace "${namespace}"`);
  const rv = body?.metadata?.resourceVersion;
  if (!rv) throw badRequest('metadata.resourceVersion is required for update');
  if (rv !== current.metadata.resourceVersion)
    throw conflict(`resource version mismatch: got "${rv}", current is "${current.metadata.resourceVersion}"`);
}
