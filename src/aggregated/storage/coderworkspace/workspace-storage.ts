// coderworkspaces: verbs → Coder REST calls, and the subresources start, stop and log.
// Delete queues a delete build and returns at once; a poll then reports DELETED to watchers when Coder
// no longer has the workspace, so `kubectl wait --for=delete` returns when it is really gone.
import { coderWorkspaceResource } from '../../../../generated/aggregated/resources.ts';
import type { Schemas } from '../../../coder/api-types.ts';
import { isUnknownUser } from '../../../coder/error-predicates.ts';
import { listAllWorkspaces } from '../../../coder/workspace-list.ts';
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { parseName } from '../../convert/object-names.ts';
import type { CoderWorkspace, CoderWorkspaceSpec } from '../../../../generated/aggregated/types.ts';
import { workspaceObject } from '../../convert/workspace.ts';
import { ApiStatusError, badRequest, notFound } from '../../status.ts';
import { coderCall } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import { checkCreateMeta, checkUpdateMeta } from '../object-meta-checks.ts';
import type { Storage, Subresource, WrittenObject } from '../storage.ts';
import { WatchHub, type WatchListener } from '../watch-hub.ts';
import type { Transition, WorkspaceAccess } from './workspace-access.ts';
import { createWorkspace } from './workspace-create.ts';
import { workspaceLog } from './workspace-log.ts';
import { workspaceTransition } from './workspace-transition.ts';

const resource = coderWorkspaceResource.names.plural;

export interface WorkspaceStorageOptions {
  /** How often a deleted workspace is looked up until it is gone, and for how long. */
  gonePollMs?: number;
  goneWaitMs?: number;
}

export class CoderWorkspaceStorage implements Storage, WorkspaceAccess {
  readonly names = coderWorkspaceResource.names;
  readonly subresources: Record<string, Subresource>;
  readonly call = coderCall(resource);
  private readonly backend: CoderBackend;
  private readonly hub = new WatchHub();
  private readonly lists = new ListCache<CoderWorkspace[]>();
  private readonly gonePollMs: number;
  private readonly goneWaitMs: number;

  constructor(backend: CoderBackend, options: WorkspaceStorageOptions = {}) {
    this.backend = backend;
    this.gonePollMs = options.gonePollMs ?? 2_000;
    this.goneWaitMs = options.goneWaitMs ?? 15 * 60_000;
    this.subresources = { log: workspaceLog(this), start: workspaceTransition(this, 'start'), stop: workspaceTransition(this, 'stop') };
  }

  list(namespace: string): Promise<CoderWorkspace[]> {
    return this.lists.get(namespace, async () => {
      const target = this.backend.forNamespace(namespace);
      const workspaces = await this.call(target, '<list>', () => listAllWorkspaces(target.client, ''));
      return workspaces.map((ws) => workspaceObject(ws, namespace));
    });
  }

  async get(namespace: string, name: string): Promise<CoderWorkspace> {
    return workspaceObject((await this.lookup(namespace, name)).ws, namespace);
  }

  watch(listener: WatchListener): () => void {
    return this.hub.subscribe(listener);
  }

  async create(namespace: string, body: WrittenObject<CoderWorkspaceSpec>): Promise<CoderWorkspace> {
    const name = checkCreateMeta(body, namespace);
    const [org, owner, workspace] = this.parse(name);
    const spec = body.spec ?? {};
    if ((spec.organization ?? '') !== org)
      throw badRequest(`spec.organization "${spec.organization ?? ''}" must match organization "${org}" parsed from metadata.name`);
    if (!spec.templateName) throw badRequest('spec.templateName must not be empty');
    const target = this.backend.forNamespace(namespace);
    let ws = await createWorkspace(this, target, { name, org, owner, workspace }, { ...spec, templateName: spec.templateName });
    if (spec.running === false) {
      // As the Go original: a failed stop build still answers the created workspace.
      const stop = await this.build(target, name, ws.id, 'stop').catch(() => undefined);
      if (stop) ws = { ...ws, latest_build: stop };
    }
    this.lists.invalidate(namespace);
    const object = workspaceObject(ws, namespace);
    this.hub.publish('ADDED', object);
    return object;
  }

  /** Only spec.running changes: a start or stop build. */
  async update(
    namespace: string,
    name: string,
    body: WrittenObject<CoderWorkspaceSpec>,
    allowCreate: boolean,
  ): Promise<{ object: CoderWorkspace; created: boolean }> {
    let found;
    try {
      found = await this.lookup(namespace, name);
    } catch (err) {
      if (allowCreate && err instanceof ApiStatusError && err.code === 404) {
        const bodyName = body?.metadata?.name;
        if (bodyName && bodyName !== name) throw badRequest(`metadata.name "${bodyName}" must match request name "${name}"`);
        return { object: await this.create(namespace, { ...body, metadata: { ...body.metadata, name } }), created: true };
      }
      throw err;
    }
    const current = workspaceObject(found.ws, namespace);
    checkUpdateMeta(body, namespace, name, current);
    const spec = body.spec ?? {};
    if (spec.organization && spec.organization !== current.spec.organization)
      throw badRequest(
        `spec.organization "${spec.organization}" must match organization "${current.spec.organization}" parsed from metadata.name`,
      );
    const immutable =
      (spec.organization ?? current.spec.organization) !== current.spec.organization ||
      (spec.templateName ?? current.spec.templateName) !== current.spec.templateName ||
      (spec.templateVersionID && spec.templateVersionID !== current.spec.templateVersionID) ||
      (spec.ttlMillis !== undefined && spec.ttlMillis !== current.spec.ttlMillis) ||
      (spec.autostartSchedule !== undefined && spec.autostartSchedule !== current.spec.autostartSchedule);
    if (immutable) throw badRequest('workspace update only supports changing spec.running; other spec fields are immutable');
    const running = Boolean(spec.running);
    if (running === current.spec.running) return { object: current, created: false };
    const next = await this.build(found.target, name, found.ws.id, running ? 'start' : 'stop');
    this.lists.invalidate(namespace);
    const object = workspaceObject({ ...found.ws, latest_build: next }, namespace);
    this.hub.publish('MODIFIED', object);
    return { object, created: false };
  }

  /** Queues a delete build; the workspace is gone when the build finishes (watchUntilGone). */
  async delete(namespace: string, name: string): Promise<{ object: CoderWorkspace; deleted: boolean }> {
    const found = await this.lookup(namespace, name);
    const next = await this.build(found.target, name, found.ws.id, 'delete');
    this.lists.invalidate(namespace);
    const object = workspaceObject({ ...found.ws, latest_build: next }, namespace);
    this.hub.publish('MODIFIED', object);
    this.watchUntilGone(namespace, name, object);
    return { object, deleted: false };
  }

  async lookup(namespace: string, name: string): Promise<{ target: CoderTarget; ws: Schemas['Workspace'] }> {
    const [org, owner, workspace] = this.parse(name);
    const target = this.backend.forNamespace(namespace);
    const ws = await this.call(target, name, () =>
      target.client
        .request('GET', '/api/v2/users/{user}/workspace/{workspaceName}', {
          params: { user: owner, workspaceName: workspace },
          query: { include_deleted: false },
        })
        .catch((err: unknown) => {
          // Coder answers 400 for an owner that names no user (coderd/httpmw/userparam.go): no such workspace either.
          if (isUnknownUser(err)) throw notFound(resource, name);
          throw err;
        }),
    );
    if (ws.organization_name !== org) throw notFound(resource, name);
    return { target, ws };
  }

  build(target: CoderTarget, name: string, id: string, transition: Transition | 'delete'): Promise<Schemas['WorkspaceBuild']> {
    return this.call(target, name, () =>
      target.client.request('POST', '/api/v2/workspaces/{workspace}/builds', { params: { workspace: id }, body: { transition } }),
    );
  }

  changed(namespace: string, ws: Schemas['Workspace']): void {
    this.lists.invalidate(namespace);
    this.hub.publish('MODIFIED', workspaceObject(ws, namespace));
  }

  private parse(name: string): [string, string, string] {
    try {
      return parseName('workspace', name) as [string, string, string];
    } catch (err) {
      throw badRequest(`invalid workspace name "${name}": ${(err as Error).message}`);
    }
  }

  private watchUntilGone(namespace: string, name: string, last: CoderWorkspace): void {
    const until = Date.now() + this.goneWaitMs;
    const poll = async () => {
      try {
        await this.lookup(namespace, name);
      } catch (err) {
        if (err instanceof ApiStatusError && err.code === 404) {
          this.lists.invalidate(namespace);
          this.hub.publish('DELETED', last);
          return;
        }
      }
      if (Date.now() < until) setTimeout(poll, this.gonePollMs).unref();
    };
    setTimeout(poll, this.gonePollMs).unref();
  }
}
