// x-kubernetes-validations at run time: every rule runs at every instance of its node (list items and
// map values included) with self bound to that value and, for transition rules, oldSelf to its old
// counterpart; failures carry the rule's message at the API server's field path.
import { isCelError } from '@bufbuild/cel';
import { compileRule } from './cel-env.ts';
import { celGoErrorMessage } from './cel-errors.ts';
import { toCelValue } from './cel-value.ts';
import { childCounterpart, deepEqual, listItemCounterpart, type Counterpart } from './correlation.ts';
import { duplicate, forbidden, invalid, omitValue, required, type ValidationError } from './error.ts';
import { fieldPath, type Segment } from './field-path.ts';
import { parseRuleFieldPath } from './rule-field-path.ts';
import { isObject, type Rule, type StructuralNode } from './structural.ts';

function errorFor(rule: Rule, path: string, self: unknown, detail: string): ValidationError {
  const value = self !== null && typeof self === 'object' ? omitValue : self;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, value);
    default:
      return invalid(path, value, detail);
  }
}

/** The rule's message, or `failed rule: <rule>` when it has none. */
function messageOf(rule: Rule): string {
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
}

function evaluate(rule: Rule, schema: StructuralNode, segments: Segment[], self: unknown, old: Counterpart): ValidationError | undefined {
  const bindings = { self: toCelValue(self, schema), ...(old ? { oldSelf: toCelValue(old.value, schema) } : {}) };
  const result = compileRule(rule.rule)(bindings);
  if (isCelError(result)) {
    // The API server names the schema type, not the value, when a rule fails to evaluate.
    const about = rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
    return invalid(fieldPath(segments), schema.type ?? '', `${celGoErrorMessage(result.message)} evaluating rule: ${about}`);
  }
  if (result === true) return undefined;
  if (result !== false) return invalid(fieldPath(segments), schema.type ?? '', `rule did not evaluate to a bool: ${rule.rule.trim()}`);
  if (!rule.fieldPath) return errorFor(rule, fieldPath(segments), self, messageOf(rule));
  // Codegen checked that the fieldPath names a field of the schema.
  const target = parseRuleFieldPath(rule.fieldPath, schema) ?? [];
  return errorFor(rule, fieldPath([...segments, ...target]), self, messageOf(rule));
}

interface Walk {
  /** Skip the errors of unchanged values on update, as the API server does (ratcheting). */
  ratchet: boolean;
  errors: ValidationError[];
}

function walk(value: unknown, old: Counterpart, schema: StructuralNode, segments: Segment[], w: Walk): void {
  if (value === undefined) return;
  if (schema.rules) {
    const unchanged = w.ratchet && old !== undefined && deepEqual(value, old.value);
    for (const rule of schema.rules) {
      if (rule.transition && !old) continue;
      // Ratcheting: a rule that does not read oldSelf is forgiven on a value the update left unchanged.
      if (unchanged && !rule.transition) continue;
      const error = evaluate(rule, schema, segments, value, old);
      if (error) w.errors.push(error);
    }
  }
  if (Array.isArray(value)) {
    if (!schema.items) return;
    value.forEach((item, i) => walk(item, listItemCounterpart(schema, old?.value, item), schema.items!, [...segments, { index: i }], w));
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) walk(child, childCounterpart(old, key), property, [...segments, { field: key }], w);
      else if (schema.additionalProperties) {
        walk(child, childCounterpart(old, key), schema.additionalProperties, [...segments, { key }], w);
      }
    }
  }
}

/** At the root, rules see only metadata.name and metadata.generateName. */
function rootView(object: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(object.metadata)) return object;
  const { name, generateName } = object.metadata;
  return { ...object, metadata: { ...(name !== undefined ? { name } : {}), ...(generateName !== undefined ? { generateName } : {}) } };
}

/**
 * Evaluates every rule of `schema` on `object` (defaulted and pruned), and transition rules against
 * `old` when given (an update).
 */
export function evaluateRules(
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  schema: StructuralNode,
): ValidationError[] {
  const w: Walk = { ratchet: old !== undefined, errors: [] };
  walk(rootView(object), old ? { value: rootView(old) } : undefined, schema, [], w);
  return w.errors;
}
