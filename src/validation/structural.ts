// The part of a CRD schema that validation needs at run time (codegen emits one tree per kind): shape,
// defaults, list semantics and CEL rules. The OpenAPI value checks themselves are compiled by ajv.

export interface Rule {
  rule: string;
  message?: string;
  /** Relative path, e.g. `.connectionSecretRef.name`, that the error names instead of the rule's node. */
  fieldPath?: string;
  /** FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate. */
  reason?: string;
  /** True when the rule reads oldSelf: it runs only on update, when the old value exists. */
  transition?: boolean;
}

export interface StructuralNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  intOrString?: boolean;
  nullable?: boolean;
  preserveUnknownFields?: boolean;
  properties?: Record<string, StructuralNode>;
  additionalProperties?: StructuralNode;
  items?: StructuralNode;
  default?: unknown;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  rules?: Rule[];
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
