// Names and owner references for the objects any controller creates: hashed, fitted names within
// Kubernetes' length limits, and the controller owner reference that ties a child to its owner.
import type { V1OwnerReference } from '@kubernetes/client-node';

/** The longest object name (a DNS subdomain). */
const maxObjectNameLength = 253;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, as 8 lower-case hex digits. */
export function fnv32a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * `prefix + suffix`, or, when that is longer than `max`, the prefix cut so that the whole fits, with
 * `-` and `.` trimmed from the ends of the cut prefix (a name may not end in them) and `fallback`
 * in place of a prefix that is left empty.
 */
export function fitName(prefix: string, suffix: string, fallback: string, max = maxObjectNameLength): string {
  if (prefix.length + suffix.length <= max) return prefix + suffix;
  const cut = prefix.slice(0, Math.max(0, max - suffix.length)).replace(/^[-.]+|[-.]+$/g, '');
  return (cut || fallback) + suffix;
}

/** The controller owner reference that makes a child go with its owner, of kind `type` (Kubernetes garbage collection). */
export function controllerOwnerReference(
  type: { apiVersion: string; kind: string },
  owner: { metadata: { name?: string; namespace?: string; uid?: string } },
): V1OwnerReference {
  const { name, namespace, uid } = owner.metadata;
  if (!name || !uid) throw new Error(`${type.kind} "${namespace ?? ''}/${name ?? ''}" has no metadata.uid`);
  return { apiVersion: type.apiVersion, kind: type.kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** A string map without undefined values (the generated types allow them), or undefined when empty. */
export function definedEntries(map: { [k: string]: string | undefined } | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) if (value !== undefined) out[key] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}
