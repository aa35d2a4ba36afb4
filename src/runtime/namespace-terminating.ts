// A namespace being deleted: the API server refuses to create anything in it, so writing there only
// fails until the namespace is gone. Seen in the cache before writing, or in the refusal itself when the
// cache has not caught up yet.
import type { V1Namespace } from '@kubernetes/client-node';
import { errorCode } from './kube-http.ts';

/** Whether the namespace (as cached; undefined when not seen) is being deleted. */
export function isTerminating(namespace: V1Namespace | undefined): boolean {
  return Boolean(namespace?.metadata?.deletionTimestamp) || namespace?.status?.phase === 'Terminating';
}

/** Whether `err` is the API server's refusal to create an object in a namespace being deleted (403, cause NamespaceTerminating). */
export function isNamespaceTerminatingError(err: unknown): boolean {
  if (errorCode(err) !== 403) return false;
  const causes = (err as { status?: { details?: { causes?: { reason?: string }[] } } }).status?.details?.causes ?? [];
  return causes.some((c) => c.reason === 'NamespaceTerminating');
}
