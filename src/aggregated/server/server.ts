// The aggregated API server: HTTPS (requesting, not requiring, client certificates), authentication and
// authorization of every request but the health paths, then discovery, OpenAPI, or a resource verb.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../runtime/logger.ts';
import type { Authenticator, UserInfo } from '../auth/authenticate.ts';
import type { Attributes, Authorizer } from '../auth/authorize.ts';
import { apiGroup, apiGroupList, apiResourceList } from './discovery.ts';
import { negotiate, partialMetadata, table, type Rendering } from './encoding.ts';
import { fieldValidation, validateFields } from './field-validation.ts';
import type { NamespaceStates } from './namespace-state.ts';
import type { AggregatedObject } from '../convert/objects.ts';
import { openApiV2, openApiV3Document, openApiV3Index } from './openapi.ts';
import { applyPatch, parsePatchBody, patchTypes, type PatchType } from './patch.ts';
import { parseObjectBody, readBody } from './request-body.ts';
import { isHealthPath, requestTarget, route } from './request-info.ts';
import { exactName, fieldSelector, labelSelector, type Selector } from './selectors.ts';
import {
  ApiStatusError,
  badRequest,
  forbidden,
  group,
  groupVersion,
  methodNotAllowed,
  notFoundPath,
  success,
  unauthorized,
  version,
} from '../status.ts';
import type { Storage, TextSink } from '../storage/storage.ts';
import { FollowSlots, followWriteMs } from './filters/log-follow-limit.ts';

/** A watch without timeoutSeconds ends after 30 to 60 minutes, as kube-apiserver's MinRequestTimeout. */
const minWatchSeconds = 1800;

export interface AggregatedServerDeps {
  authenticator: Authenticator;
  authorizer: Authorizer;
  namespaces: NamespaceStates;
  storages: Storage[];
  /** Namespaces a list across all namespaces covers. */
  servedNamespaces(): string[];
  /** Requests in flight at most before 429 (R25; the Go server's defaults are 400 and 200); watches are long-running and not counted. */
  inflight: { reads: number; writes: number };
  logger: Logger;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** PEM of the CAs whose client certificates are asked for. */
  clientCAs?: string;
}

type ResourceAttributes = Extract<Attributes, { resource: string }>;

/** One request for a resource or subresource, once its user is known and authorized for `attributes`. */
interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  storage: Storage;
  user: UserInfo;
  attributes: ResourceAttributes;
  /** The `/watch/` form of the path. */
  watchPath: boolean;
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

/** Whether Accept allows a plain JSON document (not only the aggregated discovery kinds). */
function acceptsPlainJson(accept: string): boolean {
  if (!accept) return true;
  return accept.split(',').some((entry) => {
    const e = entry.trim();
    return /^(application\/json|application\/\*|\*\/\*)\s*(;|$)/.test(e) && !/;\s*as=/.test(e);
  });
}

/**
 * A text answer written as it is produced: headers when the stream begins, each piece sent at once, the end
 * when the stream resolves. The client going away aborts the stream; a response still open after
 * followWriteMs is cut off.
 */
async function streamText(res: ServerResponse, code: number, stream: (sink: TextSink) => Promise<void>): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const cutOff = setTimeout(() => res.destroy(), followWriteMs);
  const begin = () => {
    if (res.headersSent) return;
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  try {
    await stream({
      begin,
      write(text) {
        begin();
        if (text && !res.destroyed) res.write(text);
      },
      signal: gone.signal,
    });
    begin();
    res.end();
  } finally {
    clearTimeout(cutOff);
  }
}

/** A list resourceVersion: never empty or "0", so reflectors and `kubectl get -w` can start a watch (R22). */
const listVersion = () => String(Date.now());

export class AggregatedServer {
  private server?: Server;
  private readonly deps: AggregatedServerDeps;
  private readonly byName: Map<string, Storage>;
  private inFlight = { reads: 0, writes: 0 };
  private readonly follows = new FollowSlots();

  constructor(deps: AggregatedServerDeps) {
    this.deps = deps;
    this.byName = new Map(deps.storages.map((s) => [s.names.plural, s]));
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
      user = await this.deps.authenticator.authenticate(req);
      if (!user) throw unauthorized();
      const target = requestTarget(req.url);
      path = target.path;
      const { query } = target;
      const r = route(method, path, query);
      if (r.type === 'unknown') {
        await this.check(user, { path, verb: method.toLowerCase() });
        throw notFoundPath();
      }
      if (r.type === 'discovery' || r.type === 'openapi') {
        await this.check(user, { path, verb: method.toLowerCase() });
        if (method !== 'GET') throw methodNotAllowed(method);
        if (r.type === 'discovery') {
          const accept = req.headers.accept ?? '';
          // Aggregated discovery (apidiscovery.k8s.io) is not served: the aggregator falls back to these documents.
          if (r.doc === 'apis' && !acceptsPlainJson(accept))
            throw new ApiStatusError(406, 'NotAcceptable', 'aggregated discovery is not served; ask for application/json');
          sendJson(res, 200, r.doc === 'apis' ? apiGroupList() : r.doc === 'group' ? apiGroup() : apiResourceList(this.deps.storages));
        } else {
          // Protobuf is not served: 406 makes clients ask again for JSON.
          if (!/application\/json|application\/\*|\*\/\*/.test(req.headers.accept ?? '*/*'))
            throw new ApiStatusError(406, 'NotAcceptable', 'the OpenAPI documents are served as application/json only');
          sendJson(res, 200, r.doc === 'v2' ? openApiV2() : r.doc === 'v3' ? openApiV3Index() : openApiV3Document());
        }
        return;
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
      await this.check(user, attributes);
      if (!storage) throw notFoundPath();
      const request: ResourceRequest = { req, res, query, storage, user, attributes, watchPath: r.watchPath === true };
      if (r.watchPath && method !== 'GET') throw methodNotAllowed(method);
      if (r.verb === 'watch' && !r.subresource) return await this.serveResource(request);
      const sub = r.subresource ? storage.subresources?.[r.subresource] : undefined;
      if (sub?.verb === r.verb && sub.longRunning?.(query)) {
        const release = this.follows.take(user.username);
        try {
          return await this.serveSubresource(request);
        } finally {
          release();
        }
      }
      const kind = ['get', 'list'].includes(r.verb) ? 'reads' : 'writes';
      if (this.inFlight[kind] >= this.deps.inflight[kind])
        throw new ApiStatusError(429, 'TooManyRequests', 'too many requests in flight; try again later', { retryAfterSeconds: 1 });
      this.inFlight[kind]++;
      try {
        if (r.subresource) await this.serveSubresource(request);
        else await this.serveResource(request);
      } finally {
        this.inFlight[kind]--;
      }
    } catch (err) {
      this.fail(res, err, method, path);
    }
  }

  private async check(user: UserInfo, attributes: Parameters<Authorizer['authorize']>[1]): Promise<void> {
    let verdict;
    try {
      verdict = await this.deps.authorizer.authorize(user, attributes);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'SubjectAccessReview failed');
      // kube-apiserver cannot be asked now; the same request may succeed once it can (reference R10).
      throw new ApiStatusError(
        503,
        'ServiceUnavailable',
        'authorization could not be checked: the SubjectAccessReview to kube-apiserver failed; try again later',
        { retryAfterSeconds: 1 },
      );
    }
    if (verdict.allowed) return;
    const what =
      'resource' in attributes
        ? `${attributes.verb} resource "${attributes.resource}" in API group "${group}"${attributes.namespace ? ` in the namespace "${attributes.namespace}"` : ' at the cluster scope'}`
        : `${attributes.verb} path "${attributes.path}"`;
    throw forbidden(`User "${user.username}" cannot ${what}${verdict.reason ? `: ${verdict.reason}` : ''}`);
  }

  private fail(res: ServerResponse, err: unknown, method: string, path: string): void {
    const status =
      err instanceof ApiStatusError
        ? err
        : new ApiStatusError(500, 'InternalError', 'Internal error occurred: an unexpected error; see the operator log');
    if (!(err instanceof ApiStatusError))
      this.deps.logger.error({ err: (err as Error)?.message, method, path }, 'aggregated API request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status.code === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    if (status.details?.retryAfterSeconds) res.setHeader('Retry-After', String(status.details.retryAfterSeconds));
    sendJson(res, status.code, status.body());
  }

  private async serveResource(request: ResourceRequest): Promise<void> {
    const { req, res, storage, query: q } = request;
    const { namespace, verb } = request.attributes;
    const name = request.attributes.name || undefined;
    if (storage.verbs && !storage.verbs.includes(verb)) throw methodNotAllowed(req.method ?? '');
    const rendering = negotiate(req.headers.accept);
    if (q.get('dryRun') && ['create', 'update', 'patch', 'delete'].includes(verb))
      throw badRequest(`server-side dry-run is not supported by ${storage.names.plural}.${group}; nothing was changed`);
    // Not offered (a namespace deletion must never remove Coder's objects in bulk): 405 makes the namespace
    // controller fall back to listing, which is empty while the namespace terminates.
    if (verb === 'deletecollection') throw methodNotAllowed('DELETE');
    if (namespace) {
      const state = await this.deps.namespaces.state(namespace);
      if (state !== 'active') {
        // The namespace controller lists everything and deletes what it finds: it must find nothing.
        if (verb === 'list') return this.sendList(res, storage, [], rendering, q);
        if (verb === 'watch') return this.watch(request, rendering, this.watchScope(request), []);
        if (state === 'missing')
          throw new ApiStatusError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
        if (verb === 'delete')
          throw forbidden(
            `namespace "${namespace}" is being deleted: ${storage.names.plural} are not deleted with it (Coder keeps them); delete them before, or in Coder`,
          );
      }
    }
    switch (verb) {
      case 'list': {
        const items = await this.listAll(storage, namespace, q);
        return this.sendList(res, storage, items, rendering, q);
      }
      case 'watch': {
        const scope = this.watchScope(request);
        const initial = q.get('sendInitialEvents') === 'true' ? (await this.listAll(storage, namespace, q)).filter(scope) : undefined;
        return this.watch(request, rendering, scope, initial);
      }
      case 'get':
        return this.sendObject(res, 200, await storage.get(namespace, name!), rendering, storage);
      case 'create': {
        if (!namespace) throw methodNotAllowed('POST');
        const body = parseObjectBody(await readBody(req), req.headers['content-type']);
        this.checkBody(res, body, storage, q);
        return this.sendObject(res, 201, await storage.create(namespace, body), rendering, storage);
      }
      case 'update': {
        // An update never creates, as for ConfigMaps and custom resources: a missing object is a 404.
        const body = parseObjectBody(await readBody(req), req.headers['content-type']);
        this.checkBody(res, body, storage, q);
        const { object } = await storage.update(namespace, name!, body, false);
        return this.sendObject(res, 200, object, rendering, storage);
      }
      case 'patch':
        return this.patch(request, rendering);
      case 'delete':
        return this.delete(request);
      default:
        throw methodNotAllowed(req.method ?? '');
    }
  }

  /** start, stop, promote (create) and log (get): a dry run is allowed, and answers what would happen. */
  private async serveSubresource(request: ResourceRequest): Promise<void> {
    const { req, res, storage, query: q } = request;
    const { namespace, verb } = request.attributes;
    const name = request.attributes.name;
    const subresource = request.attributes.subresource!;
    const sub = storage.subresources?.[subresource];
    if (!sub) throw notFoundPath();
    if (verb !== sub.verb) throw methodNotAllowed(req.method ?? '');
    if (req.headers.upgrade || /\bupgrade\b/i.test(req.headers.connection ?? ''))
      throw badRequest(`${storage.names.plural}/${subresource} does not upgrade connections; send a plain HTTP request`);
    const dryRun = q.getAll('dryRun');
    if (dryRun.some((v) => v !== 'All')) throw badRequest(`dryRun: only "All" is supported, got "${dryRun.join(',')}"`);
    if ((await this.deps.namespaces.state(namespace)) === 'missing')
      throw new ApiStatusError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
    const text = verb === 'create' ? await readBody(req) : '';
    const body = text.trim() ? parseObjectBody(text, req.headers['content-type']) : undefined;
    const answer = await sub.serve({ namespace, name, body, query: q, accept: req.headers.accept, dryRun: dryRun.length > 0 });
    if ('json' in answer) return sendJson(res, answer.code, answer.json);
    if ('stream' in answer) return streamText(res, answer.code, answer.stream);
    res.writeHead(answer.code, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(answer.text),
      'Cache-Control': 'no-cache, private',
    });
    res.end(answer.text);
  }

  /** The kind, and unknown fields as the caller's fieldValidation says (400 under Strict, Warning headers under Warn). */
  private checkBody(res: ServerResponse, body: Record<string, any>, storage: Storage, q: URLSearchParams): void {
    if (body.kind && body.kind !== storage.names.kind) throw badRequest(`the body is a ${body.kind}, not a ${storage.names.kind}`);
    if (body.apiVersion && body.apiVersion !== groupVersion)
      throw badRequest(`the body's apiVersion is ${body.apiVersion}, not ${groupVersion}`);
    const warnings = validateFields(storage.names.kind, body, fieldValidation(q.get('fieldValidation')));
    if (warnings.length)
      res.setHeader(
        'Warning',
        warnings.map((w) => `299 - ${JSON.stringify(w)}`),
      );
  }

  private selector(q: URLSearchParams): Selector {
    const labels = labelSelector(q.get('labelSelector'));
    const fields = fieldSelector(q.get('fieldSelector'));
    return (o) => labels(o) && fields(o);
  }

  private async listAll(storage: Storage, namespace: string, q: URLSearchParams): Promise<AggregatedObject[]> {
    const select = this.selector(q);
    if (namespace) return (await storage.list(namespace)).filter(select);
    const all: AggregatedObject[] = [];
    for (const ns of this.deps.servedNamespaces()) {
      if ((await this.deps.namespaces.state(ns)) !== 'active') continue;
      all.push(...(await storage.list(ns)));
    }
    return all
      .filter(select)
      .sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
  }

  private sendList(res: ServerResponse, storage: Storage, items: AggregatedObject[], rendering: Rendering, q: URLSearchParams): void {
    const resourceVersion = listVersion();
    if (rendering.as === 'table')
      return sendJson(
        res,
        200,
        table(items, {
          version: rendering.version,
          kind: storage.names.kind,
          includeObject: q.get('includeObject'),
          noHeaders: false,
          resourceVersion,
        }),
      );
    if (rendering.as === 'metadata')
      return sendJson(res, 200, {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${rendering.version}`,
        metadata: { resourceVersion },
        items: items.map((o) => partialMetadata(o, rendering.version)),
      });
    sendJson(res, 200, { kind: storage.names.listKind, apiVersion: groupVersion, metadata: { resourceVersion }, items });
  }

  private sendObject(res: ServerResponse, code: number, obj: AggregatedObject, rendering: Rendering, storage: Storage): void {
    if (rendering.as === 'table')
      return sendJson(
        res,
        code,
        table([obj], { version: rendering.version, kind: storage.names.kind, includeObject: null, noHeaders: false }),
      );
    if (rendering.as === 'metadata') return sendJson(res, code, partialMetadata(obj, rendering.version));
    sendJson(res, code, obj);
  }

  private async patch(request: ResourceRequest, rendering: Rendering): Promise<void> {
    const { req, res, storage, query: q, user } = request;
    const { namespace, name } = request.attributes;
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim() as PatchType;
    if (!patchTypes.includes(type))
      throw new ApiStatusError(
        415,
        'UnsupportedMediaType',
        `the patch type "${type}" is not supported; use one of ${patchTypes.join(', ')}`,
      );
    const apply = type === 'application/apply-patch+yaml';
    if (apply && !q.get('fieldManager')) throw badRequest('fieldManager is required for apply patch');
    const patchBody = parsePatchBody(type, await readBody(req));
    let live: AggregatedObject | undefined;
    try {
      live = await storage.get(namespace, name);
    } catch (err) {
      if (!(apply && err instanceof ApiStatusError && err.code === 404)) throw err;
    }
    const merged = applyPatch(type, (live ?? null) as never, patchBody) as Record<string, any>;
    if (merged === null || typeof merged !== 'object' || Array.isArray(merged)) throw badRequest('the patched object is not an object');
    if (live) merged.metadata = { ...merged.metadata, resourceVersion: merged.metadata?.resourceVersion ?? live.metadata.resourceVersion };
    this.checkBody(res, merged, storage, q);
    // An apply that creates is a create: kube-apiserver asks for `create` on the name too (its update and
    // patch handlers wrap creation in that check). Only an object found missing here may be created.
    if (!live) await this.check(user, { ...request.attributes, verb: 'create' });
    const { object, created } = await storage.update(namespace, name, merged, !live);
    this.sendObject(res, created ? 201 : 200, object, rendering, storage);
  }

  private async delete(request: ResourceRequest): Promise<void> {
    const { req, res, storage } = request;
    const { namespace, name } = request.attributes;
    const text = await readBody(req);
    const options = text.trim() ? parseObjectBody(text) : {};
    if (options.dryRun?.length)
      throw badRequest(`server-side dry-run is not supported by ${storage.names.plural}.${group}; nothing was changed`);
    const pre = options.preconditions as { uid?: string; resourceVersion?: string } | undefined;
    if (pre && (pre.uid !== undefined || pre.resourceVersion !== undefined)) {
      const current = await storage.get(namespace, name);
      if (pre.uid !== undefined && pre.uid !== current.metadata.uid)
        throw new ApiStatusError(
          409,
          'Conflict',
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
        );
      if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion)
        throw new ApiStatusError(
          409,
          'Conflict',
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
        );
    }
    const { object, deleted } = await storage.delete(namespace, name);
    sendJson(res, 200, {
      ...success(),
      details: { name, group, kind: storage.names.plural, uid: object.metadata.uid },
      ...(deleted ? {} : { message: 'Coder is deleting the workspace; it disappears when its delete build finishes' }),
    });
  }

  /**
   * What a watch may see: the objects its selectors pick, and of the `/watch/` form of an item path only that
   * item; a field selector there must require the same name, as kube-apiserver's watch handler demands.
   */
  private watchScope(request: ResourceRequest): Selector {
    const select = this.selector(request.query);
    const { name } = request.attributes;
    if (!request.watchPath || !name) return select;
    const fieldSelector = request.query.get('fieldSelector');
    if (fieldSelector && exactName(fieldSelector) !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
    return (o) => o.metadata.name === name && select(o);
  }

  private watch(request: ResourceRequest, rendering: Rendering, select: Selector, initial: AggregatedObject[] | undefined): void {
    const { req, res, storage, query: q } = request;
    const { namespace } = request.attributes;
    if (q.get('resourceVersionMatch') && q.get('sendInitialEvents') !== 'true')
      throw badRequest('resourceVersionMatch is only supported with sendInitialEvents=true on this watch endpoint');
    const timeoutSeconds = Number(q.get('timeoutSeconds')) || minWatchSeconds * (1 + Math.random());
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    let first = true;
    const encode = (obj: AggregatedObject): unknown => {
      if (rendering.as === 'metadata') return partialMetadata(obj, rendering.version);
      if (rendering.as !== 'table') return obj;
      const t = table([obj], {
        version: rendering.version,
        kind: storage.names.kind,
        includeObject: q.get('includeObject'),
        noHeaders: !first,
      });
      first = false;
      return t;
    };
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    for (const obj of initial ?? []) send('ADDED', encode(obj));
    if (initial) {
      send('BOOKMARK', {
        kind: rendering.as === 'metadata' ? 'PartialObjectMetadata' : storage.names.kind,
        apiVersion: rendering.as === 'metadata' ? `meta.k8s.io/${rendering.version}` : groupVersion,
        metadata: { resourceVersion: listVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
    }
    const unsubscribe = storage.hub.subscribe((type, obj) => {
      if (namespace && obj.metadata.namespace !== namespace) return;
      if (!select(obj)) return;
      send(type, encode(obj));
    });
    const end = () => {
      clearTimeout(timer);
      unsubscribe();
      res.end();
    };
    const timer = setTimeout(end, timeoutSeconds * 1000);
    req.on('close', end);
    res.on('close', () => {
      clearTimeout(timer);
      unsubscribe();
    });
  }
}
