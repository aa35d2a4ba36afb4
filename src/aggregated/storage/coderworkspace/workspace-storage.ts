// coderworkspaces: verbs → Coder REST calls (reference §2.6), and the subresources start, stop and log.
// Delete queues a delete build and returns at once; a poll then reports DELETED to watchers when Coder
// no longer has the workspace, so `kubectl wait --for=delete` returns when it is really gone.
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { coderCall, kubernetesError } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import { parseName } from '../../convert/object-names.ts';
import type { CoderWorkspaceObject } from '../../convert/objects.ts';
import { workspaceObject } from '../../convert/workspace.ts';
import { ApiStatusError, badRequest, notFound } from '../../status.ts';
import { checkCreateMeta, checkUpdateMeta, type Storage } from '../storage.ts';
import { WatchHub } from '../watch-hub.ts';
import { workspaceSubresources } from './workspace-transition.ts';
import type { Schemas } from '../../../coder/api-types.ts';
import { isUnknownUser } from '../../../coder/error-predicates.ts';

const resource = 'coderworkspaces';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WorkspaceStorageOptions {
  /** How often a deleted workspace is looked up until it is gone, and for how long. */
  gonePollMs?: number;
  goneWaitMs?: number;
}

export function workspaceStorage(backend: CoderBackend, options: WorkspaceStorageOptions = {}): Storage {
  const hub = new WatchHub();
  const lists = new ListCache<CoderWorkspaceObject[]>();
  const gonePollMs = options.gonePollMs ?? 2_000;
  const goneWaitMs = options.goneWaitMs ?? 15 * 60_000;

  const call = coderCall(resource);

  const parse = (name: string) => {
    try {
      return parseName('workspace', name) as [string, string, string];
    } catch (err) {
      throw badRequest(`invalid workspace name "${name}": ${(err as Error).message}`);
    }
  };

  async function lookup(namespace: string, name: string): Promise<{ target: CoderTarget; ws: Schemas['Workspace'] }> {
    const [org, owner, workspace] = parse(name);
    const target = backend.forNamespace(namespace);
    const ws = await call(target, name, () =>
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

  async function build(target: CoderTarget, name: string, id: string, transition: 'start' | 'stop' | 'delete') {
    return call(target, name, () =>
      target.client.request('POST', '/api/v2/workspaces/{workspace}/builds', { params: { workspace: id }, body: { transition } }),
    );
  }

  function watchUntilGone(namespace: string, name: string, last: CoderWorkspaceObject): void {
    const until = Date.now() + goneWaitMs;
    const poll = async () => {
      try {
        await lookup(namespace, name);
      } catch (err) {
        if (err instanceof ApiStatusError && err.code === 404) {
          lists.invalidate(namespace);
          hub.publish('DELETED', last);
          return;
        }
      }
      if (Date.now() < until) setTimeout(poll, gonePollMs).unref();
    };
    setTimeout(poll, gonePollMs).unref();
  }

  async function create(namespace: string, body: Record<string, any>): Promise<CoderWorkspaceObject> {
    const name = checkCreateMeta(body, namespace);
    const [org, owner, workspace] = parse(name);
    const spec = body.spec ?? {};
    if ((spec.organization ?? '') !== org)
      throw badRequest(`spec.organization "${spec.organization ?? ''}" must match organization "${org}" parsed from metadata.name`);
    if (!spec.templateName) throw badRequest('spec.templateName must not be empty');
    const target = backend.forNamespace(namespace);
    const organization = await call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const template = await (async () => {
      try {
        return await target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
          params: { organization: organization.id, templateName: spec.templateName },
        });
      } catch (err) {
        throw kubernetesError(err, { resource: 'codertemplates', name: `${org}.${spec.templateName}`, backend: target.label });
      }
    })();
    let versionId: string | undefined;
    if (spec.templateVersionID) {
      if (!uuid.test(spec.templateVersionID))
        throw badRequest(`invalid workspace spec: invalid templateVersionID "${spec.templateVersionID}": not a UUID`);
      const version = await call(target, name, () =>
        target.client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: spec.templateVersionID } }),
      );
      if (version.template_id !== template.id)
        throw badRequest(`spec.templateVersionID "${spec.templateVersionID}" does not belong to template "${spec.templateName}"`);
      versionId = spec.templateVersionID;
    }
    let ws = await call(target, name, () =>
      target.client
        .request('POST', '/api/v2/users/{user}/workspaces', {
          params: { user: owner },
          body: {
            name: workspace,
            ...(versionId ? { template_version_id: versionId } : { template_id: template.id }),
            ...(typeof spec.ttlMillis === 'number' ? { ttl_ms: spec.ttlMillis } : {}),
            ...(spec.autostartSchedule ? { autostart_schedule: spec.autostartSchedule } : {}),
          },
        })
        .catch((err: unknown) => {
          if (isUnknownUser(err)) throw badRequest(`owner "${owner}" parsed from metadata.name is not a user in Coder`);
          throw err;
        }),
    );
    if (spec.running === false) {
      // As the Go original: a failed stop build still answers the created workspace.
      const stop = await build(target, name, ws.id, 'stop').catch(() => undefined);
      if (stop) ws = { ...ws, latest_build: stop };
    }
    lists.invalidate(namespace);
    const object = workspaceObject(ws, namespace);
    hub.publish('ADDED', object);
    return object;
  }

  return {
    names: { plural: resource, singular: 'coderworkspace', kind: 'CoderWorkspace', listKind: 'CoderWorkspaceList' },
    hub,
    subresources: workspaceSubresources({
      lookup,
      build,
      call,
      changed(namespace, ws) {
        lists.invalidate(namespace);
        hub.publish('MODIFIED', workspaceObject(ws, namespace));
      },
    }),
    list(namespace) {
      return lists.get(namespace, async () => {
        const target = backend.forNamespace(namespace);
        const answer = await call(target, '<list>', () => target.client.request('GET', '/api/v2/workspaces', { query: { q: '' } }));
        return answer.workspaces.map((ws) => workspaceObject(ws, namespace));
      });
    },
    async get(namespace, name) {
      return workspaceObject((await lookup(namespace, name)).ws, namespace);
    },
    create,
    async update(namespace, name, body, allowCreate) {
      let found;
      try {
        found = await lookup(namespace, name);
      } catch (err) {
        if (allowCreate && err instanceof ApiStatusError && err.code === 404) {
          const bodyName = body?.metadata?.name;
          if (bodyName && bodyName !== name) throw badRequest(`metadata.name "${bodyName}" must match request name "${name}"`);
          return { object: await create(namespace, { ...body, metadata: { ...body.metadata, name } }), created: true };
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
      const next = await build(found.target, name, found.ws.id, running ? 'start' : 'stop');
      lists.invalidate(namespace);
      const object = workspaceObject({ ...found.ws, latest_build: next }, namespace);
      hub.publish('MODIFIED', object);
      return { object, created: false };
    },
    async delete(namespace, name) {
      const found = await lookup(namespace, name);
      const next = await build(found.target, name, found.ws.id, 'delete');
      lists.invalidate(namespace);
      const object = workspaceObject({ ...found.ws, latest_build: next }, namespace);
      hub.publish('MODIFIED', object);
      watchUntilGone(namespace, name, object);
      return { object, deleted: false };
    },
  };
}
