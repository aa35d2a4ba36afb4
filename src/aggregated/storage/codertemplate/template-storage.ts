// codertemplates: verbs → Coder REST calls (reference §2.7), and promote. spec.files is the active version's
// source: shown on get (archives cached by file id), and on create or update uploaded as a new version that
// must import before it is used. A write Coder applied answers success even when reading back fails.
import type { Schemas } from '../../../coder/api-types.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { coderCall } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import { parseName } from '../../convert/object-names.ts';
import type { CoderTemplateObject } from '../../convert/objects.ts';
import { templateObject } from '../../convert/template.ts';
import { ApiStatusError, badRequest, group, internalError } from '../../status.ts';
import { checkCreateMeta, checkUpdateMeta, type Storage } from '../storage.ts';
import { filesOf, mergeEntries, normalizeFiles, sameFiles, type ArchiveEntry } from './template-archive.ts';
import { TemplateFileCache } from './template-file-cache.ts';
import { listAllTemplates } from '../../../coder/template-list.ts';
import { promoteSubresource } from './template-promote.ts';
import { hasMetadata, templateMetaUpdate } from './template-settings.ts';
import { publishSource, readSource } from './template-source.ts';
import { WatchHub } from '../watch-hub.ts';

const resource = 'codertemplates';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function wantedFiles(files: unknown): Map<string, string> {
  try {
    return normalizeFiles(files);
  } catch (err) {
    throw badRequest(`invalid template spec.files: ${(err as Error).message}`);
  }
}

export interface TemplateStorageOptions {
  /** Where a write that Coder applied but that could not be read back is reported. */
  logger?: Pick<Logger, 'warn'>;
  /** The downloaded archives; one per server by default. */
  files?: TemplateFileCache;
}

export function templateStorage(backend: CoderBackend, options: TemplateStorageOptions = {}): Storage {
  const hub = new WatchHub();
  const lists = new ListCache<CoderTemplateObject[]>();
  const fileCache = options.files ?? new TemplateFileCache();
  const logger = options.logger;

  const call = coderCall(resource);

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

  /** The template with spec.files of its active version (none when that version has no source file). */
  async function withFiles(
    target: CoderTarget,
    name: string,
    template: Schemas['Template'],
    namespace: string,
  ): Promise<CoderTemplateObject> {
    const entries = await call(target, name, () => readSource(target.client, template.active_version_id, fileCache));
    return withEntries(template, namespace, entries);
  }

  function withEntries(template: Schemas['Template'], namespace: string, entries: ArchiveEntry[] | undefined): CoderTemplateObject {
    const object = templateObject(template, namespace);
    return entries ? { ...object, spec: { ...object.spec, files: filesOf(entries) } } : object;
  }

  /**
   * The template after a write Coder applied, with spec.files: from `entries` when the write uploaded them,
   * else read (the archive is usually cached). A failed read leaves spec.files out of the answer rather than
   * turning the applied write into an error (a 429 of Coder's files rate limit, say).
   */
  async function afterWrite(
    target: CoderTarget,
    name: string,
    template: Schemas['Template'],
    namespace: string,
    entries: ArchiveEntry[] | undefined,
  ): Promise<CoderTemplateObject> {
    if (entries) return withEntries(template, namespace, entries);
    try {
      return await withFiles(target, name, template, namespace);
    } catch (err) {
      logger?.warn(
        { resource, namespace, name, error: (err as Error).message },
        'the template was changed in Coder, but its files could not be read back; the answer leaves spec.files out',
      );
      return templateObject(template, namespace);
    }
  }

  async function create(namespace: string, body: Record<string, any>): Promise<CoderTemplateObject> {
    const name = checkCreateMeta(body, namespace);
    const [org, template] = parse(name);
    const spec = body.spec ?? {};
    if ((spec.organization ?? '') !== org)
      throw badRequest(`spec.organization "${spec.organization ?? ''}" must match organization "${org}" parsed from metadata.name`);
    const files = spec.files !== undefined && spec.files !== null ? wantedFiles(spec.files) : undefined;
    if (!files && (typeof spec.versionID !== 'string' || !uuid.test(spec.versionID)))
      throw badRequest(`parse template spec.versionID "${spec.versionID ?? ''}": expected the UUID of an existing template version`);
    const target = backend.forNamespace(namespace);
    const organization = await call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const versionId = files
      ? await call(target, name, () => publishSource(target.client, fileCache, organization.id, mergeEntries(files, [])))
      : (spec.versionID as string);
    const created = await call(target, name, () =>
      target.client.request('POST', '/api/v2/organizations/{organization}/templates', {
        params: { organization: organization.id },
        body: {
          name: template,
          template_version_id: versionId,
          ...(spec.displayName ? { display_name: spec.displayName } : {}),
          ...(spec.description ? { description: spec.description } : {}),
          ...(spec.icon ? { icon: spec.icon } : {}),
        },
      }),
    );
    lists.invalidate(namespace);
    const object = templateObject({ ...created, organization_name: created.organization_name ?? organization.name }, namespace);
    if (files) object.spec.files = Object.fromEntries(files);
    hub.publish('ADDED', object);
    return object;
  }

  /** 409 when the active version changed in Coder while the new one imported: activating it would undo that change. */
  async function refuseChangedMeanwhile(target: CoderTarget, name: string, template: Schemas['Template'], versionId: string) {
    const now = await call(target, name, () =>
      target.client.request('GET', '/api/v2/templates/{template}', { params: { template: template.id } }),
    );
    if (now.active_version_id === template.active_version_id) return;
    throw new ApiStatusError(
      409,
      'Conflict',
      `${resource}.${group} "${name}" changed in Coder during the update: its active version became "${now.active_version_id}" (was "${template.active_version_id}") while version "${versionId}" imported; the new version was not activated. Read the template again and retry`,
      { name, group, kind: resource },
    );
  }

  /**
   * Uploads `files` as a new version of the template when they differ from its active version's, and makes
   * it active: the template as Coder then answers and the archive's entries, or undefined when the files are
   * the same.
   */
  async function updateFiles(
    target: CoderTarget,
    name: string,
    template: Schemas['Template'],
    files: Map<string, string>,
  ): Promise<{ template: Schemas['Template']; entries: ArchiveEntry[] } | undefined> {
    const entries = (await call(target, name, () => readSource(target.client, template.active_version_id, fileCache))) ?? [];
    if (sameFiles(files, filesOf(entries))) return undefined;
    const merged = mergeEntries(files, entries);
    const versionId = await call(target, name, () =>
      publishSource(target.client, fileCache, template.organization_id, merged, template.id),
    );
    await refuseChangedMeanwhile(target, name, template, versionId);
    await call(target, name, () =>
      target.client.request('PATCH', '/api/v2/templates/{template}/versions', {
        params: { template: template.id },
        body: { id: versionId },
      }),
    );
    const after = await call(target, name, () =>
      target.client.request('GET', '/api/v2/templates/{template}', { params: { template: template.id } }),
    );
    if (after.active_version_id !== versionId)
      throw internalError(
        `assertion failed: active version promotion did not take effect: expected "${versionId}", got "${after.active_version_id}"`,
      );
    return { template: { ...after, organization_name: after.organization_name ?? template.organization_name }, entries: merged };
  }

  return {
    names: { plural: resource, singular: 'codertemplate', kind: 'CoderTemplate', listKind: 'CoderTemplateList' },
    hub,
    subresources: {
      promote: promoteSubresource({
        lookup,
        call,
        changed(namespace, template) {
          lists.invalidate(namespace);
          hub.publish('MODIFIED', templateObject(template, namespace));
        },
      }),
    },
    list(namespace) {
      return lists.get(namespace, async () => {
        const target = backend.forNamespace(namespace);
        const answer = await call(target, '<list>', () => listAllTemplates(target.client));
        return answer.map((t) => templateObject(t, namespace));
      });
    },
    async get(namespace, name) {
      const { target, template } = await lookup(namespace, name);
      return withFiles(target, name, template, namespace);
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
      const files = spec.files !== undefined && spec.files !== null ? wantedFiles(spec.files) : undefined;
      const wanted = { display_name: spec.displayName ?? '', description: spec.description ?? '', icon: spec.icon ?? '' };
      const { target } = found;
      const published = files ? await updateFiles(target, name, found.template, files) : undefined;
      // Fresh: read at the start of this request, or after the new version became active.
      let latest = published?.template ?? found.template;
      let metadataChanged = false;
      // Metadata only after the new version imported: a failed import changes nothing.
      if (!hasMetadata(latest, wanted)) {
        const patched = await call(target, name, () =>
          target.client.request('PATCH', '/api/v2/templates/{template}', {
            params: { template: latest.id },
            body: templateMetaUpdate(latest, wanted),
          }),
        );
        // undefined: 304 Not Modified, Coder already had these values.
        if (patched) {
          latest = { ...patched, organization_name: patched.organization_name ?? latest.organization_name };
          metadataChanged = true;
        }
      }
      if (!published && !metadataChanged) return { object: await withFiles(target, name, latest, namespace), created: false };
      lists.invalidate(namespace);
      const object = await afterWrite(target, name, latest, namespace, published?.entries);
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
