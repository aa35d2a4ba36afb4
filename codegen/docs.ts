// Stage: docs/reference/api.md, the API reference, from the schemas' descriptions, defaults, rules and
// declared conditions.
import type { JsonSchema } from './json-schema.ts';
import type { ResolvedKind } from './load.ts';
import { kubernetesTypeKey } from './resolve.ts';

interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
  notes: string[];
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function typeName(schema: JsonSchema): string {
  const k8s = schema[kubernetesTypeKey];
  if (typeof k8s === 'string') {
    const parts = k8s.split('.');
    return `${parts.at(-1)} (${parts.at(-3)}/${parts.at(-2)})`;
  }
  if (schema['x-kubernetes-int-or-string']) return 'int or string';
  if (schema.type === 'array') return `[]${typeName((schema.items ?? {}) as JsonSchema)}`;
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    return `map[string]${typeName(schema.additionalProperties as JsonSchema)}`;
  }
  return String(schema.type ?? 'any');
}

function notesOf(schema: JsonSchema): string[] {
  const notes: string[] = [];
  if (schema.default !== undefined) notes.push(`default \`${JSON.stringify(schema.default)}\``);
  if (Array.isArray(schema.enum)) notes.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'format'] as const) {
    if (schema[key] !== undefined) notes.push(`${key} \`${String(schema[key])}\``);
  }
  for (const rule of (schema['x-kubernetes-validations'] ?? []) as { message?: string; rule: string }[]) {
    notes.push(`rule: ${rule.message ?? `\`${rule.rule}\``}`);
  }
  return notes;
}

function fieldRows(schema: JsonSchema, prefix: string, rows: FieldRow[]): FieldRow[] {
  const required = new Set((schema.required ?? []) as string[]);
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const path = `${prefix}.${name}`;
    rows.push({ path, type: typeName(raw), required: required.has(name), description: String(raw.description ?? ''), notes: notesOf(raw) });
    if (typeof raw[kubernetesTypeKey] === 'string') continue;
    if (raw.properties) fieldRows(raw, path, rows);
    const items = raw.items as JsonSchema | undefined;
    if (items?.properties && typeof items[kubernetesTypeKey] !== 'string') {
      if (items['x-kubernetes-validations']) rows.at(-1)!.notes.push(...notesOf(items).filter((n) => n.startsWith('rule:')));
      fieldRows(items, `${path}[]`, rows);
    }
  }
  return rows;
}

export function kindSection(kind: ResolvedKind): string {
  const lines = [`## ${kind.kind}`, '', cell(String(kind.resolved.description ?? '')), ''];
  lines.push(
    '| | |',
    '| --- | --- |',
    `| apiVersion | \`${kind.group}/${kind.version}\` |`,
    `| resource | \`${kind.names.plural}\` (${kind.scope.toLowerCase()}) |`,
    `| short names | ${(kind.names.shortNames ?? []).map((s) => `\`${s}\``).join(', ') || '—'} |`,
    `| categories | ${(kind.names.categories ?? []).map((s) => `\`${s}\``).join(', ') || '—'} |`,
    '',
  );
  const rootRules = notesOf(kind.resolved).filter((n) => n.startsWith('rule:'));
  if (rootRules.length) lines.push(...rootRules.map((r) => `- ${cell(r)}`), '');
  lines.push('### Fields', '', '| field | type | description | validation |', '| --- | --- | --- | --- |');
  for (const row of fieldRows(kind.resolved, '', [])) {
    lines.push(
      `| \`${row.path.slice(1)}\`${row.required ? ' (required)' : ''} | ${cell(row.type)} | ${cell(row.description)} | ${cell(row.notes.join('; '))} |`,
    );
  }
  const conditions = Object.entries(kind.conditions);
  if (conditions.length) {
    lines.push('', '### Conditions', '', '| type | reason | meaning |', '| --- | --- | --- |');
    for (const [type, decl] of conditions) {
      lines.push(`| \`${type}\` | | ${cell(decl.description)} |`);
      for (const [reason, meaning] of Object.entries(decl.reasons)) lines.push(`| | \`${reason}\` | ${cell(meaning)} |`);
    }
  }
  if (kind.printerColumns.length) {
    lines.push('', '### `kubectl get` columns', '', '| column | from |', '| --- | --- |');
    for (const column of kind.printerColumns) lines.push(`| ${column.name} | \`${column.jsonPath}\` |`);
  }
  return lines.join('\n');
}

export function apiReference(kinds: ResolvedKind[]): string {
  const toc = kinds.map((k) => `- [${k.kind}](#${k.kind.toLowerCase()})`);
  return ['# API reference: coder.com/v1alpha1', '', ...toc, '', ...kinds.map(kindSection).flatMap((s) => [s, ''])].join('\n');
}
