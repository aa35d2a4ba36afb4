// Reads the API server's audit log (JSON lines, level Metadata for every request; SubjectAccessReviews
// at level Request, with the review asked for).
import { readFile } from 'node:fs/promises';

export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number };
  /** The request body, for SubjectAccessReviews only. */
  requestObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

export interface AuditFilter {
  username?: string;
  /** Only requests received at or after this time. */
  since?: Date;
  until?: Date;
  verbs?: string[];
  /**
   * Audit stages to keep; by default only ResponseComplete. A watch logs ResponseStarted when it opens and
   * ResponseComplete only when it ends, so counting the watches an operator holds needs ResponseStarted.
   */
  stages?: string[];
}

export const writeVerbs = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export async function readAuditLog(file: string, filter: AuditFilter = {}): Promise<AuditEvent[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const events: AuditEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as AuditEvent;
    if (!(filter.stages ?? ['ResponseComplete']).includes(event.stage)) continue;
    if (filter.username && event.user.username !== filter.username) continue;
    if (filter.verbs && !filter.verbs.includes(event.verb)) continue;
    const received = new Date(event.requestReceivedTimestamp);
    if (filter.since && received < filter.since) continue;
    if (filter.until && received > filter.until) continue;
    events.push(event);
  }
  return events;
}
