// A template's source files in Coder: read the active version's archive, and
// publish new files as a version (upload, create, wait for the import).
import type { CoderClient } from '../../../coder/client.ts';
import type { TemplateFileCache } from './template-file-cache.ts';
import { internalError } from '../../status.ts';
import { archiveLimits, readTar, writeTar, type ArchiveEntry } from './template-archive.ts';
import { waitForImport } from './template-import-wait.ts';

/**
 * How long one write may wait for an import: the Go server's 34-second write cap less a margin for the
 * calls around the wait, so kube-apiserver's own timeout never cuts a request that would have succeeded.
 */
export const importBudgetMs = 30_000;

/**
 * The files of a template version's archive, or undefined for a version without a source file (Coder's
 * always have one); an unreadable archive is a 500 that says so. The archive comes from `files` when an
 * earlier read or upload put it there.
 */
export async function readSource(client: CoderClient, versionId: string, files: TemplateFileCache): Promise<ArchiveEntry[] | undefined> {
  const version = await client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: versionId } });
  const fileId = version.job.file_id;
  if (!fileId) return undefined;
  const archive = await files.get(client.origin.href, fileId, () => client.downloadFile(fileId, { maxBytes: archiveLimits.archiveBytes }));
  try {
    return readTar(archive);
  } catch (err) {
    throw internalError(`fetch template source files: ${(err as Error).message}`);
  }
}

/**
 * Uploads `entries` as a tar (kept in `files` under the id Coder gives it), creates a version of them (of
 * `templateId`, when the template exists) and waits for its import; its id.
 */
export async function publishSource(
  client: CoderClient,
  files: TemplateFileCache,
  organizationId: string,
  entries: ArchiveEntry[],
  templateId?: string,
): Promise<string> {
  const archive = writeTar(entries);
  const upload = await client.request('POST', '/api/v2/files', { body: archive, contentType: 'application/x-tar' });
  files.put(client.origin.href, upload.hash, archive);
  const version = await client.request('POST', '/api/v2/organizations/{organization}/templateversions', {
    params: { organization: organizationId },
    body: { storage_method: 'file', file_id: upload.hash, provisioner: 'terraform', ...(templateId ? { template_id: templateId } : {}) },
  });
  await waitForImport(client, version.id, importBudgetMs);
  return version.id;
}
