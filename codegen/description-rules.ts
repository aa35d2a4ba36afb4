// What `kubectl explain` must not say: the mechanical mistakes a field description can make about its
// default and its required-ness, checked against the schema itself. Wording as in the Kubernetes API
// docs: "Defaults to X." as the last sentence, stated once, on the field it belongs to; required-ness
// is shown by kubectl's -required- marker and written only as a condition ("Required when ...").
import type { JsonSchema } from './json-schema.ts';
import { kubernetesTypeKey } from './resolve.ts';

const defaultStatement = /\bDefaults (?:to|by)\b|\(the default\)|\bby default\b|\b(\w+) defaults to\b/gi;
const conditional = /\b(?:when|if|unless|for|with|while|without)\b/i;

/** How a schema default reads in a description: `Defaults to <this>`. */
export function defaultText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(defaultText).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${k}: ${defaultText(v)}`)
    .join(', ')}}`;
}

/** Only sentences that Kubernetes also puts after the default may follow it. */
const afterDefault = /^(?:Cannot be changed after creation\.|Required (?:when|for) [^.]*\.)$/;

function isLastSentence(fromStatement: string): boolean {
  const [, ...rest] = fromStatement.split(/(?<=[.!?])\s+(?=[A-Z])/);
  return rest.every((sentence) => afterDefault.test(sentence));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function problemsOf(path: string, node: JsonSchema, required: boolean): string[] {
  const description = typeof node.description === 'string' ? node.description : '';
  const problems: string[] = [];
  const properties = Object.keys((node.properties ?? {}) as Record<string, unknown>);
  const statements = [...description.matchAll(defaultStatement)];
  if (statements.length > 1) {
    problems.push(`${path}: states a default ${statements.length} times (${statements.map((m) => `"${m[0]}"`).join(', ')})`);
  }
  for (const m of statements) {
    if (m[1] && properties.includes(m[1])) {
      problems.push(`${path}: states the default of its field ${m[1]} ("${m[0]}"); state it in ${path}.${m[1]}`);
    }
  }
  if (node.default !== undefined && !isEmptyObject(node.default)) {
    const expected = defaultText(node.default);
    if (!new RegExp(`\\bDefaults to \`?${escape(expected)}\`?(?=$|[.:;]| \\()`).test(description)) {
      problems.push(`${path}: has default ${expected} but its description does not say "Defaults to ${expected}."`);
    }
  }
  const statement = /\bDefaults (?:to|by)\b/.exec(description);
  if (statement && !isLastSentence(description.slice(statement.index))) {
    problems.push(`${path}: "${description.slice(statement.index).split(/(?<=\.)\s/)[0]}" is not the last sentence`);
  }
  if (required && node.default !== undefined) {
    problems.push(`${path}: is required and has a default; a field the API server defaults is optional`);
  }
  for (const sentence of description.split(/(?<=[.;])\s+/).filter((s) => /\brequired\b/i.test(s))) {
    if (required) problems.push(`${path}: says "${sentence}" though kubectl explain already marks it -required-`);
    else if (!conditional.test(sentence)) problems.push(`${path}: says "${sentence}" but the schema does not require it`);
  }
  return problems;
}

/**
 * Every problem in the descriptions of `schema` (a resolved kind schema), as `<Kind><path>: what`.
 * Inside an inlined Kubernetes type only its outermost description counts: the CRD keeps no other.
 */
export function descriptionProblems(kind: string, schema: JsonSchema): string[] {
  const problems: string[] = [];
  const walk = (node: JsonSchema, path: string, required: boolean): void => {
    problems.push(...problemsOf(path, node, required));
    if (typeof node[kubernetesTypeKey] === 'string') return;
    const requiredNames = new Set((node.required ?? []) as string[]);
    for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      walk(child, `${path}.${name}`, requiredNames.has(name));
    }
    if (node.items && typeof node.items === 'object') walk(node.items as JsonSchema, `${path}[]`, false);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      walk(node.additionalProperties as JsonSchema, `${path}{}`, false);
    }
  };
  walk(schema, kind, false);
  return problems;
}
