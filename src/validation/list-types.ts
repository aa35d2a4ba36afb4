// x-kubernetes-list-type set and map: the API server rejects a repeated set value or map key, once per
// value, at its second occurrence (spec.tools.rules[1]: Duplicate value: {"tool":"t"}).
import { duplicate, invalid, type ValidationError } from './error.ts';
import { fieldPath, type Segment } from './field-path.ts';
import { goJson } from './go-format.ts';
import { isObject, type StructuralNode } from './structural.ts';

function identity(value: unknown): string {
  return value !== null && typeof value === 'object' ? `json:${goJson(value)}` : `${typeof value}:${String(value)}`;
}

function checkList(list: unknown[], schema: StructuralNode, segments: Segment[], errors: ValidationError[]): void {
  if (schema.listType === 'map') {
    const bad = list.findIndex((x) => x !== null && !isObject(x));
    if (bad >= 0) {
      errors.push(invalid(fieldPath([...segments, { index: bad }]), list[bad], 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1 || (schema.listType !== 'set' && schema.listType !== 'map')) return;
  const keys = schema.listMapKeys ?? [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    let value: unknown = item;
    if (schema.listType === 'map') {
      if (!isObject(item)) return;
      value = Object.fromEntries(
        keys
          .filter((k) => item[k] !== undefined || schema.items?.properties?.[k]?.default !== undefined)
          .map((k) => [k, item[k] ?? schema.items?.properties?.[k]?.default]),
      );
    }
    const id = identity(value);
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) errors.push(duplicate(fieldPath([...segments, { index: i }]), value));
  });
}

function walk(value: unknown, schema: StructuralNode | undefined, segments: Segment[], errors: ValidationError[]): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    checkList(value, schema, segments, errors);
    value.forEach((item, i) => walk(item, schema.items, [...segments, { index: i }], errors));
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (schema.properties?.[k]) walk(v, schema.properties[k], [...segments, { field: k }], errors);
      else if (schema.additionalProperties) walk(v, schema.additionalProperties, [...segments, { key: k }], errors);
    }
  }
}

/** Repeated values of sets and repeated keys of map lists anywhere in `object`. */
export function listTypeErrors(object: unknown, schema: StructuralNode): ValidationError[] {
  const errors: ValidationError[] = [];
  walk(object, schema, [], errors);
  return errors;
}
