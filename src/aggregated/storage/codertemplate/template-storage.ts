// codertemplates: verbs → Coder REST calls, and promote. spec.files is the active version's
// source (template-files.ts): shown on get, and on create or update uploaded as a new version.
import { coderTemplateResource } from '../../../../generated/aggregated/resources.ts';
import type { Schemas } from '../../../coder/api-types.ts';
import { listAllTemplates } from '../../../coder/template-list.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { CoderBackend, CoderTarget } from '../../backend.ts';
import { parseName } from '../../convert/object-names.ts';
import type { CoderTemplate, CoderTemplateSpec } from '../../../../generated/aggregated/types.ts';
import { templateObject } from '../../convert/template.ts';
import { ApiStatusError, badRequest } from '../../status.ts';
import { coderCall } from '../coder-errors.ts';
import { ListCache } from '../list-cache.ts';
import { checkCreateMeta, checkUpdateMeta } from '../object-meta-checks.ts';
import type { Storage, Subresource, WrittenObject } from '../storage.ts';
import { WatchHub, type WatchListener } from '../watch-hub.ts';
import { TemplateFileCache } from './template-file-cache.ts';
import { TemplateFiles, wantedFiles } from './template-files.ts';
import { promoteSubresource, type TemplateAccess } from './template-promote.ts';
import { hasMetadata, templateMetaUpdate } from './template-settings.ts';

const resource = coderTemplateResource.names.plural;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TemplateStorageOptions {
  /** Where a write that Coder applied but that could not be read back is reported. */
  logger?: Pick<Logger, 'warn'>;
  /** The downloaded archives; one per server by default. */
  files?: TemplateFileCache;
}

export class CoderTemplateStorage implements Storage, TemplateAccess {
  readonly names = coderTemplateResource.names;
  readonly subresources: Record<string, Subresource>;
  readonly call = coderCall(resource);
  private readonly backend: CoderBackend;
  private readonly hub = new WatchHub();
  private readonly lists = new ListCache<CoderTemplate[]>();
  private readonly files: TemplateFiles;

  constructor(backend: CoderBackend, options: TemplateStorageOptions = {}) {
    this.backend = backend;
    this.files = new TemplateFiles(this.call, options.files ?? new TemplateFileCache(), options.logger);
    this.subresources = { promote: promoteSubresource(this) };
  }

  list(namespace: string): Promise<CoderTemplate[]> {
    return this.lists.get(namespace, async () => {
      const target = this.backend.forNamespace(namespace);
      const answer = await this.call(target, '<list>', () => listAllTemplates(target.client));
      return answer.map((t) => templateObject(t, namespace));
    });
  }

  async get(namespace: string, name: string): Promise<CoderTemplate> {
    const { target, template } = await this.lookup(namespace, name);
    return this.files.withFiles(target, name, template, namespace);
  }

  watch(listener: WatchListener): () => void {
    return this.hub.subscribe(listener);
  }

  /** From spec.files (uploaded as the first version) or from spec.versionID, an imported version. */
  async create(namespace: string, body: WrittenObject<CoderTemplateSpec>): Promise<CoderTemplate> {
    const name = checkCreateMeta(body, namespace);
    const [org, template] = this.parse(name);
    const spec = body.spec ?? {};
    if ((spec.organization ?? '') !== org)
      throw badRequest(`spec.organization "${spec.organization ?? ''}" must match organization "${org}" parsed from metadata.name`);
    const files = wantedFiles(spec.files);
    if (!files && (typeof spec.versionID !== 'string' || !uuid.test(spec.versionID)))
      throw badRequest(`parse template spec.versionID "${spec.versionID ?? ''}": expected the UUID of an existing template version`);
    const target = this.backend.forNamespace(namespace);
    const organization = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const versionId = files
      ? await this.files.publishNew(target, name, organization.id, files)
      : await this.importedVersion(target, name, spec.versionID as string);
    const created = await this.call(target, name, () =>
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
    this.lists.invalidate(namespace);
    const object = templateObject({ ...created, organization_name: created.organization_name ?? organization.name }, namespace);
    if (files) object.spec.files = Object.fromEntries(files);
    this.hub.publish('ADDED', object);
    return object;
  }

  /**
   * spec.versionID when its import succeeded. Coder makes a template of a version in any state (coder/coder
   * v2.26.1 coderd/templates.go postTemplateByOrganization), and one whose import is pending or failed could
   * build no workspace; an unknown id is the caller's mistake, not a missing template.
   */
  private async importedVersion(target: CoderTarget, name: string, id: string): Promise<string> {
    const version = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: id } }),
    ).catch((err: unknown) => {
      throw err instanceof ApiStatusError && err.code === 404 ? badRequest(`spec.versionID "${id}": no template version has this id`) : err;
    });
    if (version.job.status !== 'succeeded')
      throw badRequest(
        `spec.versionID "${id}": the template version's import is ${version.job.status || 'unknown'}, not succeeded; create the template from an imported version, or from spec.files`,
      );
    return id;
  }

  /** New spec.files become the active version first; display name, description and icon change after. */
  async update(
    namespace: string,
    name: string,
    body: WrittenObject<CoderTemplateSpec>,
    allowCreate: boolean,
  ): Promise<{ object: CoderTemplate; created: boolean }> {
    let found;
    try {
      found = await this.lookup(namespace, name);
    } catch (err) {
      if (allowCreate && err instanceof ApiStatusError && err.code === 404) {
        return { object: await this.create(namespace, { ...body, metadata: { ...body.metadata, name } }), created: true };
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
    const files = wantedFiles(spec.files);
    const wanted = { display_name: spec.displayName ?? '', description: spec.description ?? '', icon: spec.icon ?? '' };
    const { target } = found;
    const published = files ? await this.files.update(target, name, found.template, files) : undefined;
    // Fresh: read at the start of this request, or after the new version became active.
    let latest = published?.template ?? found.template;
    let metadataChanged = false;
    // Metadata only after the new version imported: a failed import changes nothing.
    if (!hasMetadata(latest, wanted)) {
      const patched = await this.call(target, name, () =>
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
    if (!published && !metadataChanged) return { object: await this.files.withFiles(target, name, latest, namespace), created: false };
    this.lists.invalidate(namespace);
    const object = await this.files.afterWrite(target, name, latest, namespace, published?.entries);
    this.hub.publish('MODIFIED', object);
    return { object, created: false };
  }

  async delete(namespace: string, name: string): Promise<{ object: CoderTemplate; deleted: boolean }> {
    const found = await this.lookup(namespace, name);
    await this.call(found.target, name, () =>
      found.target.client.request('DELETE', '/api/v2/templates/{template}', { params: { template: found.template.id } }),
    );
    this.lists.invalidate(namespace);
    const object = templateObject(found.template, namespace);
    this.hub.publish('DELETED', object);
    return { object, deleted: true };
  }

  async lookup(namespace: string, name: string): Promise<{ target: CoderTarget; template: Schemas['Template'] }> {
    const [org, template] = this.parse(name);
    const target = this.backend.forNamespace(namespace);
    const organization = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
    );
    const found = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
        params: { organization: organization.id, templateName: template },
      }),
    );
    return { target, template: { ...found, organization_name: found.organization_name ?? organization.name } };
  }

  changed(namespace: string, template: Schemas['Template']): void {
    this.lists.invalidate(namespace);
    this.hub.publish('MODIFIED', templateObject(template, namespace));
  }

  private parse(name: string): [string, string] {
    try {
      return parseName('template', name) as [string, string];
    } catch (err) {
      throw badRequest(`invalid template name "${name}": ${(err as Error).message}`);
    }
  }
}
