// Stage 1 for the aggregated API (schemas/aggregated/): load the group file and its kinds in the order it
// lists them, resolve their $refs, and lint them: every property described, descriptions by the CRD rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { descriptionProblems } from './description-rules.ts';
import type { JsonSchema } from './json-schema.ts';
import type { PrinterColumn, ResolvedKind } from './load.ts';
import { schemasDir } from './paths.ts';
import { resolveRefs } from './resolve.ts';

export const aggregatedDir = join(schemasDir, 'aggregated');

export interface AggregatedSubresource {
  verb: 'get' | 'create';
  /** The kind of its answer, as discovery shows it. */
  kind: string;
}

/** A kind the aggregated API server serves: a CRD-like kind file, plus the verbs and subresources it serves. */
export interface AggregatedKind extends ResolvedKind {
  verbs: string[];
  subresources: Record<string, AggregatedSubresource>;
}

export interface AggregatedApi {
  /** schemas/aggregated/group.yaml, relative to schemas/. */
  file: string;
  group: string;
  version: string;
  metadataDescription: string;
  nameColumn: PrinterColumn;
  ageColumn: PrinterColumn;
  objectMeta: JsonSchema;
  listMeta: JsonSchema;
  kinds: AggregatedKind[];
}

function read(file: string): Record<string, unknown> {
  return parse(readFileSync(join(aggregatedDir, file), 'utf8')) as Record<string, unknown>;
}

function required(doc: Record<string, unknown>, keys: string[], file: string): void {
  const missing = keys.filter((k) => doc[k] === undefined);
  if (missing.length) throw new Error(`schemas/aggregated/${file}: missing ${missing.join(', ')}`);
}

/** Properties without a description (`kubectl explain` would show nothing for them); a list's items need none of their own. */
export function undescribed(schema: JsonSchema, path: string, describedItself = true): string[] {
  const own = !describedItself || (typeof schema.description === 'string' && schema.description.trim()) ? [] : [path];
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const items = schema.items && typeof schema.items === 'object' ? undescribed(schema.items as JsonSchema, `${path}[]`, false) : [];
  return [...own, ...properties.flatMap(([name, child]) => undescribed(child, `${path}.${name}`)), ...items];
}

function loadKind(file: string, group: string, version: string): AggregatedKind {
  const doc = read(file);
  required(doc, ['kind', 'scope', 'names', 'verbs', 'schema'], file);
  const kind = doc.kind as string;
  const schema = doc.schema as JsonSchema;
  return {
    file: `aggregated/${file}`,
    group,
    version,
    kind,
    scope: doc.scope as ResolvedKind['scope'],
    names: doc.names as ResolvedKind['names'],
    printerColumns: (doc.printerColumns ?? []) as PrinterColumn[],
    conditions: {},
    schema,
    resolved: resolveRefs(schema, join(aggregatedDir, file)),
    verbs: doc.verbs as string[],
    subresources: (doc.subresources ?? {}) as Record<string, AggregatedSubresource>,
  };
}

/** The aggregated API, or what is wrong with its schemas. */
export function loadAggregatedApi(): AggregatedApi {
  const file = 'group.yaml';
  const doc = read(file);
  required(doc, ['group', 'version', 'kinds', 'metadataDescription', 'nameColumn', 'ageColumn', 'objectMeta', 'listMeta'], file);
  const group = doc.group as string;
  const version = doc.version as string;
  const api: AggregatedApi = {
    file: `aggregated/${file}`,
    group,
    version,
    metadataDescription: doc.metadataDescription as string,
    nameColumn: doc.nameColumn as PrinterColumn,
    ageColumn: doc.ageColumn as PrinterColumn,
    objectMeta: doc.objectMeta as JsonSchema,
    listMeta: doc.listMeta as JsonSchema,
    kinds: (doc.kinds as string[]).map((f) => loadKind(f, group, version)),
  };
  const problems = [
    ...[...undescribed(api.objectMeta, 'ObjectMeta'), ...undescribed(api.listMeta, 'ListMeta')].map((p) => `${p}: no description`),
    ...api.kinds.flatMap((k) => [
      ...undescribed(k.resolved, k.kind).map((p) => `${p}: no description`),
      ...descriptionProblems(k.kind, k.resolved),
    ]),
  ];
  if (problems.length) throw new Error(`schemas/aggregated breaks the description rules:\n  ${problems.join('\n  ')}`);
  return api;
}
