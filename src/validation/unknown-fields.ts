// Strict field validation: the fields the API server prunes because the schema does not declare them
// (kubectl sends fieldValidation=Strict, so each one is an error). Paths are printed like the API
// server's: spec.extraEnv[0].bogus, spec.service.annotations.a.b.
import { isObject, type JsonObject, type StructuralNode } from './structural.ts';

const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const ownerReferenceFields = new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
const managedFieldsEntryFields = new Set(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/** Unknown fields of metadata (ObjectMeta is decoded strictly), in document order. */
function unknownMetadataFields(metadata: unknown): string[] {
  if (!isObject(metadata)) return [];
  const out = Object.keys(metadata)
    .filter((k) => !objectMetaFields.has(k))
    .map((k) => `metadata.${k}`);
  const nested = (field: string, known: Set<string>) => {
    const list = metadata[field];
    if (!Array.isArray(list)) return;
    list.forEach((item, i) => {
      if (isObject(item)) for (const k of Object.keys(item)) if (!known.has(k)) out.push(`metadata.${field}[${i}].${k}`);
    });
  };
  nested('ownerReferences', ownerReferenceFields);
  nested('managedFields', managedFieldsEntryFields);
  return out;
}

/** Removes, in place, every field the schema does not declare below a resource root; returns their paths. */
function prune(value: unknown, schema: StructuralNode | undefined, path: string, isRoot: boolean, found: string[]): void {
  if (schema?.preserveUnknownFields) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => prune(item, schema?.items, `${path}[${i}]`, false, found));
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (isRoot && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const property = schema?.properties?.[key];
    if (property) prune(value[key], property, join(path, key), false, found);
    else if (schema?.additionalProperties) prune(value[key], schema.additionalProperties, join(path, key), false, found);
    else {
      found.push(join(path, key));
      delete value[key];
    }
  }
}

/**
 * Removes the undeclared fields from `object` (a copy the caller owns) and returns their paths in the
 * order the API server lists them: metadata's first, then the others sorted.
 */
export function pruneUnknownFields(object: JsonObject, schema: StructuralNode): string[] {
  const found: string[] = [];
  prune(object, schema, '', true, found);
  return [...unknownMetadataFields(object.metadata), ...found.sort()];
}
