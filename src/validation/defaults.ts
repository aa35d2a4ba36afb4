// Structural defaulting, as the API server does it while decoding a request: nulls of non-nullable
// fields without a default are dropped, then absent (or null) fields get their defaults, recursively,
// so that a defaulted object gets the defaults of its own fields too.
import { isObject, type StructuralNode } from './structural.ts';

function isNonNullableNull(value: unknown, schema: StructuralNode | undefined): boolean {
  return value === null && schema !== undefined && !schema.nullable;
}

/** Drops, in place, null values that the schema does not allow and that have no default. */
export function pruneNulls(value: unknown, schema: StructuralNode | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    for (const item of value) pruneNulls(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
    if (childSchema && child === null && childSchema.default === undefined && !childSchema.nullable) delete value[key];
    else pruneNulls(child, childSchema);
  }
}

/** Applies the schema's defaults in place; default values are copied. */
export function applyDefaults(value: unknown, schema: StructuralNode | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (isNonNullableNull(item, schema.items) && schema.items?.default !== undefined) value[i] = structuredClone(schema.items.default);
      applyDefaults(value[i], schema.items);
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!(key in value) || isNonNullableNull(value[key], property)) value[key] = structuredClone(property.default);
  }
  for (const key of Object.keys(value)) {
    const property = schema.properties?.[key];
    if (property) applyDefaults(value[key], property);
    else if (schema.additionalProperties) {
      const values = schema.additionalProperties;
      if (isNonNullableNull(value[key], values) && values.default !== undefined) value[key] = structuredClone(values.default);
      applyDefaults(value[key], values);
    }
  }
}
