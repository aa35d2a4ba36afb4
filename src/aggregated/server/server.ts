// The aggregated API server: HTTPS (requesting, not requiring, client certificates), and the request path as
// kube-apiserver's handler chain: the health paths, then the filters (authentication, impersonation refused,
// request info, authorization, in-flight limits), then discovery, OpenAPI, or the handler of a resource verb.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../runtime/logger.ts';
import type { Authenticator, UserInfo } from '../auth/authenticate.ts';
import type { Authorizer } from '../auth/authorize.ts';
import { group, methodNotAllowed, notFoundPath, version } from '../status.ts';
import type { Storage } from '../storage/storage.ts';
import { serveDiscovery } from './discovery.ts';
import { authenticatedUser } from './filters/authentication.ts';
import { AuthorizationFilter } from './filters/authorization.ts';
import { refuseImpersonation } from './filters/impersonation.ts';
import { FollowSlots } from './filters/log-follow-limit.ts';
import { MaxInFlight, type InFlightLimits } from './filters/max-in-flight.ts';
import { serveResource } from './handlers/resource.ts';
import type { ResourceHandlerDeps, ResourceRequest } from './handlers/resource-request.ts';
import { serveSubresource } from './handlers/subresource.ts';
import type { NamespaceStates } from './namespace-state.ts';
import { serveOpenApi } from './openapi.ts';
import { isHealthPath, requestTarget, route } from './request-info.ts';
import { sendFailure } from './response.ts';

export interface AggregatedServerDeps {
  authenticator: Authenticator;
  authorizer: Authorizer;
  namespaces: NamespaceStates;
  storages: Storage[];
  /** Namespaces a list across all namespaces covers. */
  servedNamespaces(): string[];
  /** Requests in flight at most before 429 (the Go server's defaults are 400 and 200); watches are long-running and not counted. */
  inflight: InFlightLimits;
  logger: Logger;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** PEM of the CAs whose client certificates are asked for. */
  clientCAs?: string;
}

export class AggregatedServer {
  private server?: Server;
  private readonly deps: AggregatedServerDeps;
  private readonly byName: Map<string, Storage>;
  private readonly authorization: AuthorizationFilter;
  private readonly maxInFlight: MaxInFlight;
  private readonly follows = new FollowSlots();
  private readonly handlerDeps: ResourceHandlerDeps;

  constructor(deps: AggregatedServerDeps) {
    this.deps = deps;
    this.byName = new Map(deps.storages.map((s) => [s.names.plural, s]));
    this.authorization = new AuthorizationFilter(deps.authorizer, deps.logger);
    this.maxInFlight = new MaxInFlight(deps.inflight);
    this.handlerDeps = { namespaces: deps.namespaces, servedNamespaces: deps.servedNamespaces, authorization: this.authorization };
  }

  async listen(host: string, port: number, tls: TlsMaterial): Promise<number> {
    this.server = createServer(
      { cert: tls.cert, key: tls.key, ca: tls.clientCAs || undefined, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
      (req, res) => void this.handle(req, res),
    );
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** New serving certificate or client CAs, for connections from now on. */
  updateTls(tls: TlsMaterial): void {
    this.server?.setSecureContext({ cert: tls.cert, key: tls.key, ca: tls.clientCAs || undefined });
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const started = Date.now();
    let user: UserInfo | undefined;
    let path = '';
    res.on('finish', () =>
      this.deps.logger.debug(
        { method, path, code: res.statusCode, ms: Date.now() - started, user: user?.username },
        'aggregated API request',
      ),
    );
    try {
      if (isHealthPath(req.url)) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      }
      user = await authenticatedUser(this.deps.authenticator, req);
      refuseImpersonation(req);
      const target = requestTarget(req.url);
      path = target.path;
      await this.dispatch(req, res, user, path, target.query);
    } catch (err) {
      sendFailure(res, err, this.deps.logger, { method, path });
    }
  }

  /** The request of an authenticated user: authorized, then served by what its path names. */
  private async dispatch(req: IncomingMessage, res: ServerResponse, user: UserInfo, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    const r = route(method, path, query);
    if (r.type !== 'resource') {
      await this.authorization.check(user, { path, verb: method.toLowerCase() });
      if (r.type === 'unknown') throw notFoundPath();
      if (method !== 'GET') throw methodNotAllowed(method);
      if (r.type === 'discovery') return serveDiscovery(req, res, r.doc);
      return serveOpenApi(req, res, r.doc);
    }
    const storage = this.byName.get(r.resource);
    const attributes = {
      resource: r.resource,
      verb: r.verb,
      namespace: r.namespace,
      name: r.name ?? '',
      group,
      version,
      ...(r.subresource ? { subresource: r.subresource } : {}),
    };
    await this.authorization.check(user, attributes);
    if (!storage) throw notFoundPath();
    const request: ResourceRequest = {
      req,
      res,
      query,
      storage,
      user,
      attributes,
      watchPath: r.watchPath === true,
      deps: this.handlerDeps,
    };
    if (r.watchPath && method !== 'GET') throw methodNotAllowed(method);
    // Long-running: a watch is not limited, a followed log has its own limit; the rest counts in flight.
    if (r.verb === 'watch' && !r.subresource) return serveResource(request);
    const sub = r.subresource ? storage.subresources?.[r.subresource] : undefined;
    if (sub?.verb === r.verb && sub.longRunning?.(query)) {
      const release = this.follows.take(user.username);
      try {
        return await serveSubresource(request);
      } finally {
        release();
      }
    }
    return this.maxInFlight.run(r.verb, user.groups, () => (r.subresource ? serveSubresource(request) : serveResource(request)));
  }
}
