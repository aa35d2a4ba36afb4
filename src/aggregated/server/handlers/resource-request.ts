// One request for a resource or subresource as the verb handlers see it: its user known and authorized for
// its attributes, its storage found; and what the handlers reach beyond the storage.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../../auth/authenticate.ts';
import type { Attributes } from '../../auth/authorize.ts';
import type { Storage } from '../../storage/storage.ts';
import type { AuthorizationFilter } from '../filters/authorization.ts';
import type { NamespaceStates } from '../namespace-state.ts';

export type ResourceAttributes = Extract<Attributes, { resource: string }>;

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  storage: Storage;
  user: UserInfo;
  attributes: ResourceAttributes;
  /** The `/watch/` form of the path. */
  watchPath: boolean;
  deps: ResourceHandlerDeps;
}

export interface ResourceHandlerDeps {
  namespaces: NamespaceStates;
  /** Namespaces a list across all namespaces covers. */
  servedNamespaces(): string[];
  /** For the second check of an apply that creates. */
  authorization: AuthorizationFilter;
}
