// codertemplates: verbs → Coder REST calls (reference §2.7), without spec.files (source upload and
// import wait are not built yet: a body with spec.files is refused with a 400 that says so).
import type { Schemas } from '../coder/api-types.ts';
import type { CoderBackend, CoderTarget } from './backend.ts';
import { kubernetesError } from './coder-errors.ts';
import { ListCache } from './list-cache.ts';
import { parseName, templateObject, type CoderTemplateObject } from './objects.ts';
import { ApiStatusError, badRequest } from './status.ts';
import { checkCreateMeta, checkUpdateMeta, type Storage } from './storage.ts';
import { WatchHub } from './watch-hub.ts';

const resource = 'codertemplates';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const filesNotSupported =
  'spec.files is not supported by this server yet: import the version in Coder and set spec.versionID (create) or promote it in Coder (update)';

export function templateStorage(backend: CoderBackend): Storage {
  const hub = new WatchHub();
  const lists = new ListCache<CoderTemplateObject[]>();

  const call = async <T>(target: CoderTarget, name: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw kubernetesError(err, { resource, name, backend: target.label });
    }
  };

  const parse = (name: string) => {
    try {
      return parseName('template', name) as [string, string];
    } catch (err) {
      throw badRequest(`invalid template name "${name}": ${(err as Error).message}`);
    }
  };

  async function lookup(namespace: string, name: string): Promise<{ target: CoderTarget; template: Schemas['Template'] }> {
    const [org, template] = parse(name);
    const target = backend.forNamespace(namespace);
    const organization = await call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const found = await call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
        params: { organization: organization.id, templateName: template },
      }),
    );
    return { target, template: { ...found, organization_name: found.organization_name ?? organization.name } };
  }

  async function create(namespace: string, body: Record<string, any>): Promise<CoderTemplateObject> {
    const name = checkCreateMeta(body, namespace);
    const [org, template] = parse(name);
    const spec = body.spec ?? {};
    if ((spec.organization ?? '') !== org)
      throw badRequest(`spec.organization "${spec.organization ?? ''}" must match organization "${org}" parsed from metadata.name`);
    if (spec.files !== undefined) throw badRequest(filesNotSupported);
    if (typeof spec.versionID !== 'string' || !uuid.test(spec.versionID))
      throw badRequest(`parse template spec.versionID "${spec.versionID ?? ''}": expected the UUID of an existing template version`);
    const target = backend.forNamespace(namespace);
    const organization = await call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const created = await call(target, name, () =>
      target.client.request('POST', '/api/v2/organizations/{organization}/templates', {
        params: { organization: organization.id },
        body: {
          name: template,
          template_version_id: spec.versionID,
          ...(spec.displayName ? { display_name: spec.displayName } : {}),
          ...(spec.description ? { description: spec.description } : {}),
          ...(spec.icon ? { icon: spec.icon } : {}),
        },
      }),
    );
    lists.invalidate(namespace);
    const object = templateObject({ ...created, organization_name: created.organization_name ?? organization.name }, namespace);
    hub.publish('ADDED', object);
    return object;
  }

  return {
    names: { plural: resource, singular: 'codertemplate', kind: 'CoderTemplate', listKind: 'CoderTemplateList' },
    hub,
    list(namespace) {
      return lists.get(namespace, async () => {
        const target = backend.forNamespace(namespace);
        const answer = await call(target, '<list>', () => target.client.request('GET', '/api/v2/templates'));
        return answer.map((t) => templateObject(t, namespace));
      });
    },
    async get(namespace, name) {
      return templateObject((await lookup(namespace, name)).template, namespace);
    },
    create,
    async update(namespace, name, body, allowCreate) {
      let found;
      try {
        found = await lookup(namespace, name);
      } catch (err) {
        if (allowCreate && err instanceof ApiStatusError && err.code === 404) {
          return { object: await create(namespace, { ...body, metadata: { ...body.metadata, name } }), created: true };
        }
        throw err;
      }
      const current = templateObject(found.template, namespace);
      checkUpdateMeta(body, namespace, name, current);
      const spec = body.spec ?? {};
      if ((spec.organization ?? '') !== current.spec.organization)
        throw badRequest(`spec.organization "${spec.organization ?? ''}" must match existing organization "${current.spec.organization}"`);
      if (spec.versionID && spec.versionID !== current.spec.versionID)
        throw badRequest(
          `spec.versionID is read-only; to change the active version, update spec.files instead (current: "${current.spec.versionID}", requested: "${spec.versionID}")`,
        );
      if (spec.files !== undefined) throw badRequest(filesNotSupported);
      const wanted = { display_name: spec.displayName ?? '', description: spec.description ?? '', icon: spec.icon ?? '' };
      const t = found.template;
      if (wanted.display_name === (t.display_name ?? '') && wanted.description === (t.description ?? '') && wanted.icon === (t.icon ?? ''))
        return { object: current, created: false };
      const updated = await call(found.target, name, () =>
        found.target.client.request('PATCH', '/api/v2/templates/{template}', { params: { template: t.id }, body: wanted }),
      );
      lists.invalidate(namespace);
      const object = templateObject({ ...t, ...updated, organization_name: t.organization_name }, namespace);
      hub.publish('MODIFIED', object);
      return { object, created: false };
    },
    async delete(namespace, name) {
      const found = await lookup(namespace, name);
      await call(found.target, name, () =>
        found.target.client.request('DELETE', '/api/v2/templates/{template}', { params: { template: found.template.id } }),
      );
      lists.invalidate(namespace);
      const object = templateObject(found.template, namespace);
      hub.publish('DELETED', object);
      return { object, deleted: true };
    },
  };
}
