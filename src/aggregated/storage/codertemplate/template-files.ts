// A CoderTemplate's spec.files: the active version's source, shown on get (archives
// cached by file id), and on create or update uploaded as a new version that must import before it is used.
// A write Coder applied answers success even when reading the files back fails.
import type { Schemas } from '../../../coder/api-types.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { CoderTarget } from '../../backend.ts';
import type { CoderTemplate } from '../../../../generated/aggregated/types.ts';
import { templateObject } from '../../convert/template.ts';
import { ApiStatusError, badRequest, group, internalError } from '../../status.ts';
import type { CoderCall } from '../coder-errors.ts';
import { filesOf, mergeEntries, normalizeFiles, sameFiles, type ArchiveEntry } from './template-archive.ts';
import type { TemplateFileCache } from './template-file-cache.ts';
import { publishSource, readSource } from './template-source.ts';

const resource = 'codertemplates';

/** spec.files of a written object, normalized; undefined when it has none; a 400 naming what is wrong. */
export function wantedFiles(files: unknown): Map<string, string> | undefined {
  if (files === undefined || files === null) return undefined;
  try {
    return normalizeFiles(files);
  } catch (err) {
    throw badRequest(`invalid template spec.files: ${(err as Error).message}`);
  }
}

export class TemplateFiles {
  private readonly call: CoderCall;
  private readonly cache: TemplateFileCache;
  private readonly logger: Pick<Logger, 'warn'> | undefined;

  constructor(call: CoderCall, cache: TemplateFileCache, logger: Pick<Logger, 'warn'> | undefined) {
    this.call = call;
    this.cache = cache;
    this.logger = logger;
  }

  /** The template with spec.files of its active version (none when that version has no source file). */
  async withFiles(target: CoderTarget, name: string, template: Schemas['Template'], namespace: string): Promise<CoderTemplate> {
    const entries = await this.call(target, name, () => readSource(target.client, template.active_version_id, this.cache));
    return withEntries(template, namespace, entries);
  }

  /**
   * The template after a write Coder applied, with spec.files: from `entries` when the write uploaded them,
   * else read (the archive is usually cached). A failed read leaves spec.files out of the answer rather than
   * turning the applied write into an error (a 429 of Coder's files rate limit, say).
   */
  async afterWrite(
    target: CoderTarget,
    name: string,
    template: Schemas['Template'],
    namespace: string,
    entries: ArchiveEntry[] | undefined,
  ): Promise<CoderTemplate> {
    if (entries) return withEntries(template, namespace, entries);
    try {
      return await this.withFiles(target, name, template, namespace);
    } catch (err) {
      this.logger?.warn(
        { resource, namespace, name, error: (err as Error).message },
        'the template was changed in Coder, but its files could not be read back; the answer leaves spec.files out',
      );
      return templateObject(template, namespace);
    }
  }

  /** Uploads the files of a new template as a version, waits for its import: the version's id. */
  publishNew(target: CoderTarget, name: string, organizationId: string, files: Map<string, string>): Promise<string> {
    return this.call(target, name, () => publishSource(target.client, this.cache, organizationId, mergeEntries(files, [])));
  }

  /**
   * Uploads `files` as a new version of the template when they differ from its active version's, and makes
   * it active: the template as Coder then answers and the archive's entries, or undefined when the files are
   * the same.
   */
  async update(
    target: CoderTarget,
    name: string,
    template: Schemas['Template'],
    files: Map<string, string>,
  ): Promise<{ template: Schemas['Template']; entries: ArchiveEntry[] } | undefined> {
    const entries = (await this.call(target, name, () => readSource(target.client, template.active_version_id, this.cache))) ?? [];
    if (sameFiles(files, filesOf(entries))) return undefined;
    const merged = mergeEntries(files, entries);
    const versionId = await this.call(target, name, () =>
      publishSource(target.client, this.cache, template.organization_id, merged, template.id),
    );
    await this.refuseChangedMeanwhile(target, name, template, versionId);
    await this.call(target, name, () =>
      target.client.request('PATCH', '/api/v2/templates/{template}/versions', {
        params: { template: template.id },
        body: { id: versionId },
      }),
    );
    const after = await this.call(target, name, () =>
      target.client.request('GET', '/api/v2/templates/{template}', { params: { template: template.id } }),
    );
    if (after.active_version_id !== versionId)
      throw internalError(
        `assertion failed: active version promotion did not take effect: expected "${versionId}", got "${after.active_version_id}"`,
      );
    return { template: { ...after, organization_name: after.organization_name ?? template.organization_name }, entries: merged };
  }

  /** 409 when the active version changed in Coder while the new one imported: activating it would undo that change. */
  private async refuseChangedMeanwhile(target: CoderTarget, name: string, template: Schemas['Template'], versionId: string) {
    const now = await this.call(target, name, () =>
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
}

function withEntries(template: Schemas['Template'], namespace: string, entries: ArchiveEntry[] | undefined): CoderTemplate {
  const object = templateObject(template, namespace);
  return entries ? { ...object, spec: { ...object.spec, files: filesOf(entries) } } : object;
}
