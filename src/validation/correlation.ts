// Which part of the old object corresponds to a part of the new one, as the API server pairs them for
// transition rules (oldSelf) and ratcheting: properties and map values by key, items of list-type map
// lists by their keys, items of sets by value; items of atomic lists have no counterpart.
import type { Segment } from './field-path.ts';
import { isObject, type StructuralNode } from './structural.ts';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A counterpart in the old object: present, or absent (no old value to compare with). */
export type Counterpart = { value: unknown } | undefined;

/** The old counterpart of `item`, the new list item at `index`, in the list `oldList`. */
export function listItemCounterpart(schema: StructuralNode | undefined, oldList: unknown, item: unknown): Counterpart {
  if (!Array.isArray(oldList) || !schema) return undefined;
  if (schema.listType === 'map' && isObject(item)) {
    const keys = schema.listMapKeys ?? [];
    const match = oldList.find((o) => isObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
    return match === undefined ? undefined : { value: match };
  }
  if (schema.listType === 'set') {
    const match = oldList.find((o) => deepEqual(o, item));
    return match === undefined ? undefined : { value: match };
  }
  return undefined;
}

/** The old counterpart of a property or map value. */
export function childCounterpart(old: Counterpart, key: string): Counterpart {
  if (!old || !isObject(old.value) || !(key in old.value)) return undefined;
  return { value: old.value[key] };
}

/**
 * Whether the API server would ratchet (forgive) an error reported at `segments`: the deepest part of
 * the path that has an old counterpart is unchanged.
 */
export function isUnchanged(newRoot: unknown, oldRoot: unknown, schema: StructuralNode, segments: readonly Segment[]): boolean {
  let value = newRoot;
  let old: Counterpart = { value: oldRoot };
  let node: StructuralNode | undefined = schema;
  for (const s of segments) {
    if ('index' in s) {
      const item: unknown = Array.isArray(value) ? value[s.index] : undefined;
      const next = listItemCounterpart(node, old?.value, item);
      if (!next) break;
      value = item;
      old = next;
      node = node?.items;
    } else {
      const key = 'field' in s ? s.field : s.key;
      const next = childCounterpart(old, key);
      if (!next || !isObject(value)) break;
      value = value[key];
      old = next;
      node = 'field' in s ? (node?.properties?.[key] ?? node?.additionalProperties) : node?.additionalProperties;
    }
  }
  return old !== undefined && deepEqual(value, old.value);
}
