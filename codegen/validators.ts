// Stage: a validator per kind, from the CRD schema exactly as the API server receives it, and an index of
// them. ajv standalone code checks the OpenAPI keywords; a structural tree (shape, defaults, list types,
// CEL rules) drives the hand-written runtime in src/validation/ (unknown fields, defaulting, list keys,
// CEL, API-server wording).
import { parse } from '@bufbuild/cel';
import { Ajv, _ } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import { supportedCelFunctions } from '../src/validation/cel-functions.ts';
import { apiServerFormats, kubeFormats } from '../src/validation/formats.ts';
import { re2RegExp } from '../src/validation/re2.ts';
import { parseRuleFieldPath } from '../src/validation/rule-field-path.ts';
import type { Rule, StructuralNode } from '../src/validation/structural.ts';
import { buildCrd } from './crd.ts';
import type { JsonSchema } from './json-schema.ts';
import type { KindSource } from './load.ts';

/** Keywords the validators implement; any other keyword in a schema stops codegen. */
const valueKeywords = new Set([
  'type',
  'format',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'required',
  'properties',
  'items',
  'additionalProperties',
  'anyOf',
  'default',
  'nullable',
  'description',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** A shared subtree is emitted once when it appears at least twice and is at least this long. */
const shareThreshold = 300;

/** The CRD's openAPIV3Schema: what the API server validates against. */
function crdOpenApiSchema(kind: KindSource, resolved: JsonSchema): JsonSchema {
  const crd = buildCrd(kind, resolved) as { spec: { versions: { schema: { openAPIV3Schema: JsonSchema } }[] } };
  return crd.spec.versions[0]!.schema.openAPIV3Schema;
}

function ruleUses(expr: unknown, calls: Set<string>, idents: Set<string>): void {
  if (Array.isArray(expr)) for (const e of expr) ruleUses(e, calls, idents);
  else if (expr !== null && typeof expr === 'object') {
    const node = expr as { case?: string; value?: { function?: string; name?: string } };
    if (node.case === 'callExpr' && node.value?.function) calls.add(node.value.function);
    if (node.case === 'identExpr' && node.value?.name) idents.add(node.value.name);
    for (const v of Object.values(expr)) ruleUses(v, calls, idents);
  }
}

/** Checks a CEL rule compiles with our functions and notes whether it is a transition rule. */
export function structuralRule(raw: JsonSchema, where: string): Rule {
  const unsupported = Object.keys(raw).filter((k) => !['rule', 'message', 'fieldPath', 'reason'].includes(k));
  if (unsupported.length) throw new Error(`${where}: rule field(s) ${unsupported.join(', ')} not supported by src/validation`);
  const rule = String(raw.rule);
  let parsed: unknown;
  try {
    parsed = parse(rule);
  } catch (err) {
    throw new Error(`${where}: CEL rule does not parse: ${rule}: ${(err as Error).message}`);
  }
  const calls = new Set<string>();
  const idents = new Set<string>();
  ruleUses(parsed, calls, idents);
  const missing = [...calls].filter((f) => !supportedCelFunctions.has(f));
  if (missing.length) {
    throw new Error(`${where}: CEL rule uses ${missing.join(', ')}, which src/validation/cel-env.ts does not provide: ${rule}`);
  }
  return {
    rule,
    ...(raw.message !== undefined ? { message: String(raw.message) } : {}),
    ...(raw.fieldPath !== undefined ? { fieldPath: String(raw.fieldPath) } : {}),
    ...(raw.reason !== undefined ? { reason: String(raw.reason) } : {}),
    ...(idents.has('oldSelf') ? { transition: true } : {}),
  };
}

/** The runtime tree of a schema node, keys in a fixed order so equal subtrees print equally. */
export function structuralNode(schema: JsonSchema, where: string): StructuralNode {
  const unknown = Object.keys(schema).filter((k) => !valueKeywords.has(k));
  if (unknown.length) throw new Error(`${where}: schema keyword(s) ${unknown.join(', ')} not supported by the validators`);
  const node: StructuralNode = {};
  if (schema.type !== undefined) node.type = schema.type as StructuralNode['type'];
  if (schema.format !== undefined) node.format = String(schema.format);
  if (schema.format === 'duration' || schema.format === 'byte') {
    throw new Error(
      `${where}: format ${schema.format} is a CEL ${schema.format === 'byte' ? 'bytes' : 'duration'} value; src/validation/cel-value.ts binds it as a string`,
    );
  }
  if (schema['x-kubernetes-int-or-string']) node.intOrString = true;
  if (schema.nullable) node.nullable = true;
  if (schema['x-kubernetes-preserve-unknown-fields']) node.preserveUnknownFields = true;
  if (schema.default !== undefined) node.default = schema.default;
  if (schema['x-kubernetes-list-type'] !== undefined) node.listType = schema['x-kubernetes-list-type'] as StructuralNode['listType'];
  if (schema['x-kubernetes-list-map-keys'] !== undefined) node.listMapKeys = schema['x-kubernetes-list-map-keys'] as string[];
  if (schema.properties) {
    node.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [k, structuralNode(v, `${where}.${k}`)]),
    );
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
    node.additionalProperties = structuralNode(schema.additionalProperties as JsonSchema, `${where}{*}`);
  }
  if (schema.items) node.items = structuralNode(schema.items as JsonSchema, `${where}[*]`);
  if (schema['x-kubernetes-validations'] !== undefined) {
    node.rules = (schema['x-kubernetes-validations'] as JsonSchema[]).map((r, i) => {
      const rule = structuralRule(r, `${where} rule ${i}`);
      if (rule.fieldPath !== undefined && !parseRuleFieldPath(rule.fieldPath, node)) {
        throw new Error(`${where} rule ${i}: fieldPath ${rule.fieldPath} does not name a field of this schema`);
      }
      return rule;
    });
  }
  return node;
}

/** The ajv (draft-07) form of a schema node: value keywords only; defaults and pruning happen before ajv runs. */
export function ajvSchema(schema: JsonSchema, where: string): JsonSchema {
  const out: JsonSchema = {};
  const type = schema.type as string | undefined;
  if (schema['x-kubernetes-int-or-string']) out.type = ['integer', 'string'];
  else if (type !== undefined) out.type = schema.nullable ? [type, 'null'] : type;
  if (typeof schema.format === 'string') {
    const format = schema.format;
    if (format in kubeFormats) out.format = format;
    else if (type === 'string' && apiServerFormats.has(format)) {
      throw new Error(`${where}: format ${format} is checked by the API server but not by src/validation/formats.ts`);
    }
  }
  for (const k of ['enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'required']) {
    if (schema[k] !== undefined) out[k] = schema[k];
  }
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [k, ajvSchema(v, `${where}.${k}`)]),
    );
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = ajvSchema(schema.additionalProperties as JsonSchema, `${where}{*}`);
  }
  if (schema.items) out.items = ajvSchema(schema.items as JsonSchema, `${where}[*]`);
  if (schema.anyOf) out.anyOf = (schema.anyOf as JsonSchema[]).map((s, i) => ajvSchema(s, `${where} anyOf ${i}`));
  return out;
}

type Role = 'schema' | 'schemas' | 'value';

/** What the value under `key` of a schema node is: a schema, a map or list of schemas, or plain data. */
function roleOf(key: string): Role {
  if (key === 'items' || key === 'additionalProperties') return 'schema';
  if (key === 'properties' || key === 'anyOf') return 'schemas';
  return 'value';
}

/**
 * Replaces every large schema subtree that occurs more than once (inlined Kubernetes types, shared
 * pieces) by a reference, innermost first; `name(i)` names the i-th. Returns the rewritten tree and the
 * shared subtrees in definition order (each refers only to earlier ones).
 */
function shareSubtrees<T>(
  root: T,
  refer: (name: string) => unknown,
  name: (i: number) => string,
): { tree: T; shared: [string, unknown][] } {
  const counts = new Map<string, number>();
  const visit = (node: unknown, role: Role, each: (schema: object) => void): void => {
    if (node === null || typeof node !== 'object' || role === 'value') return;
    if (role === 'schemas') {
      for (const v of Object.values(node)) visit(v, 'schema', each);
      return;
    }
    each(node);
    for (const [k, v] of Object.entries(node)) visit(v, roleOf(k), each);
  };
  visit(root, 'schema', (schema) => {
    const key = JSON.stringify(schema);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  const names = new Map<string, string>();
  const shared: [string, unknown][] = [];
  const rewrite = (node: unknown, role: Role, isRoot = false): unknown => {
    if (node === null || typeof node !== 'object' || role === 'value') return node;
    if (role === 'schemas') {
      return Array.isArray(node)
        ? node.map((v) => rewrite(v, 'schema'))
        : Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, 'schema')]));
    }
    const key = JSON.stringify(node);
    const done = names.get(key);
    if (done) return refer(done);
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, roleOf(k))]));
    if (!isRoot && (counts.get(key) ?? 0) > 1 && key.length >= shareThreshold) {
      const id = name(shared.length);
      names.set(key, id);
      shared.push([id, out]);
      return refer(id);
    }
    return out;
  };
  return { tree: rewrite(root, 'schema', true) as T, shared };
}

/** JavaScript source of a value in which `{ $shared: name }` stands for the constant `name`. */
function literal(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value);
    return `[\n${value.map((v) => `${inner}${literal(v, inner)}`).join(',\n')},\n${indent}]`;
  }
  const obj = value as Record<string, unknown>;
  if (typeof obj.$shared === 'string' && Object.keys(obj).length === 1) return obj.$shared;
  const entries = Object.entries(obj).map(
    ([k, v]) => `${inner}${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v, inner)}`,
  );
  return entries.length ? `{\n${entries.join(',\n')},\n${indent}}` : '{}';
}

/** ajv standalone ESM code for one schema, exported as `matchesSchema`. */
function ajvStandalone(schema: JsonSchema): string {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    messages: false,
    inlineRefs: false,
    unicodeRegExp: true,
    formats: kubeFormats as never,
    code: { source: true, esm: true, lines: true, optimize: 1, regExp: re2RegExp, formats: _`kubeFormats` },
  });
  ajv.addSchema(schema, 'kind');
  // A CommonJS module: under NodeNext its default export is module.exports, whose .default is the function.
  return standalone.default(ajv, { matchesSchema: 'kind' });
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function validatorConstName(kind: KindSource): string {
  return `${lowerFirst(kind.kind)}Validator`;
}

export function validatorFile(kind: KindSource, resolved: JsonSchema): string {
  const schema = crdOpenApiSchema(kind, resolved);
  const where = `schemas/${kind.file}`;
  const { tree: ajvTree, shared: ajvShared } = shareSubtrees(
    ajvSchema(schema, where),
    (n) => ({ $ref: `#/$defs/${n}` }),
    (i) => `d${i}`,
  );
  const code = ajvStandalone({ ...(ajvTree as JsonSchema), $defs: Object.fromEntries(ajvShared) });
  const structure = structuralNode(schema, where);
  const { tree, shared } = shareSubtrees(
    structure,
    (n) => ({ $shared: n }),
    (i) => `shared${i}`,
  );
  const hasRules = JSON.stringify(structure).includes('"rules":');
  const name = validatorConstName(kind);
  return [
    '// @ts-nocheck: what follows up to the structural tree is ajv standalone JavaScript.',
    ...(code.includes('require(') ? ["import { createRequire } from 'node:module';"] : []),
    "import type { ValidationError } from '../../src/validation/error.ts';",
    "import { kubeFormats } from '../../src/validation/formats.ts';",
    "import { re2RegExp } from '../../src/validation/re2.ts';",
    "import type { StructuralNode } from '../../src/validation/structural.ts';",
    "import { runValidation, type KindValidator } from '../../src/validation/validate.ts';",
    '',
    ...(code.includes('require(')
      ? ['// ajv standalone ESM still loads its runtime helpers with require().', 'const require = createRequire(import.meta.url);', '']
      : []),
    code.trim(),
    '',
    '// The structural tree: shape, defaults, list types and CEL rules.',
    ...shared.map(([n, v]) => `const ${n}: StructuralNode = ${literal(v)};`),
    `const structure: StructuralNode = ${literal(tree)};`,
    '',
    `/** Validates ${kind.kind} objects as the API server does (see src/validation/validate.ts). */`,
    `export const ${name}: KindValidator = {`,
    `  apiVersion: '${kind.group}/${kind.version}',`,
    `  kind: '${kind.kind}',`,
    '  structure,',
    '  matchesSchema,',
    `  hasRules: ${hasRules},`,
    '};',
    '',
    `/** The problems the API server would report for \`obj\` (an update of \`old\`, when given). */`,
    `export function validate${kind.kind}(obj: unknown, old?: unknown): ValidationError[] {`,
    `  return runValidation(${name}, obj, old);`,
    '}',
    '',
  ].join('\n');
}

/** generated/validators/index.ts: every kind's validator, for callers that pick one by apiVersion and kind. */
export function validatorsIndexFile(kinds: KindSource[]): string {
  return [
    "import type { KindValidator } from '../../src/validation/validate.ts';",
    ...kinds.map((kind) => `import { ${validatorConstName(kind)} } from './${kind.names.singular}.ts';`),
    '',
    "/** Every kind's validator, in the file order of schemas/. */",
    'export const kindValidators: readonly KindValidator[] = [',
    ...kinds.map((kind) => `  ${validatorConstName(kind)},`),
    '];',
    '',
  ].join('\n');
}
