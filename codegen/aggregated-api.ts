// Stage: what the aggregated API server serves of schemas/aggregated/, as data it imports: each resource's
// names, verbs, subresources and table columns (generated/aggregated/resources.ts), and the OpenAPI
// definitions of its kinds, lists and metadata (generated/aggregated/openapi.ts) that /openapi/v2 and
// /openapi/v3 serve, `kubectl explain` shows and field validation checks against.
import type { AggregatedApi, AggregatedKind } from './aggregated-load.ts';
import type { JsonSchema } from './json-schema.ts';
import type { PrinterColumn } from './load.ts';

/** The OpenAPI names of the served kinds: com.coder.aggregation.v1alpha1.<Kind>, as kube-openapi names a group's types. */
export function definitionName(api: AggregatedApi, kind: string): string {
  return `${api.group.split('.').reverse().join('.')}.${api.version}.${kind}`;
}

export const objectMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const listMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

/** The schema without codegen's own markers (x-coder-*), which are not served. */
function served(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(served);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => !k.startsWith('x-coder-'))
      .map(([k, v]) => [k, served(v)]),
  );
}

function kindDefinition(api: AggregatedApi, kind: AggregatedKind): JsonSchema {
  const properties = (kind.resolved.properties ?? {}) as Record<string, JsonSchema>;
  return {
    type: 'object',
    description: kind.resolved.description,
    properties: {
      apiVersion: { type: 'string', description: `${api.group}/${api.version}` },
      kind: { type: 'string', description: kind.kind },
      metadata: { $ref: objectMetaName, description: api.metadataDescription },
      ...(served(properties) as Record<string, JsonSchema>),
    },
    'x-kubernetes-group-version-kind': [{ group: api.group, version: api.version, kind: kind.kind }],
  };
}

function listDefinition(api: AggregatedApi, kind: AggregatedKind): JsonSchema {
  const listKind = kind.names.listKind;
  return {
    type: 'object',
    description: `A list of ${kind.kind}.`,
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: `${api.group}/${api.version}` },
      kind: { type: 'string', description: listKind },
      metadata: { $ref: listMetaName },
      items: { type: 'array', items: { $ref: definitionName(api, kind.kind) } },
    },
    'x-kubernetes-group-version-kind': [{ group: api.group, version: api.version, kind: listKind }],
  };
}

/** Every definition the OpenAPI documents serve, by name; a `$ref` is the bare name of another. */
export function openApiDefinitions(api: AggregatedApi): Record<string, JsonSchema> {
  const definitions: Record<string, JsonSchema> = {};
  for (const kind of api.kinds) {
    definitions[definitionName(api, kind.kind)] = kindDefinition(api, kind);
    definitions[definitionName(api, kind.names.listKind)] = listDefinition(api, kind);
  }
  definitions[objectMetaName] = served(api.objectMeta) as JsonSchema;
  definitions[listMetaName] = served(api.listMeta) as JsonSchema;
  return definitions;
}

export function openApiFile(api: AggregatedApi): string {
  return [
    '/** The OpenAPI schemas of the served kinds, their lists and their metadata, by name; a `$ref` is the bare name of another. */',
    `export const aggregatedOpenApiDefinitions: Record<string, { [key: string]: unknown }> = ${JSON.stringify(openApiDefinitions(api), null, 2)};`,
    '',
  ].join('\n');
}

/** A column as the Table serves it; a `date` column is served as a string, the time since the date. */
function column(c: PrinterColumn) {
  return {
    definition: {
      name: c.name,
      type: c.type === 'date' ? 'string' : c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    },
    jsonPath: c.jsonPath,
    cell: c.type === 'date' ? 'age' : 'value',
  };
}

function constName(kind: string): string {
  return `${kind.charAt(0).toLowerCase()}${kind.slice(1)}Resource`;
}

const resourceTypes = `/** A column of a kind's Table (\`kubectl get\`): its definition as served, and what its cells show. */
export interface AggregatedTableColumn {
  definition: { name: string; type: string; format: string; description: string; priority: number };
  /** The field a cell shows, as a path below the object: \`.spec.templateName\`. */
  jsonPath: string;
  /** \`value\`: the field as it is ('' or false when missing, by type); \`age\`: the time since the field's date, '<unknown>' without one. */
  cell: 'value' | 'age';
}

/** A resource the aggregated API server serves. */
export interface AggregatedResource {
  names: { plural: string; singular: string; kind: string; listKind: string };
  namespaced: boolean;
  /** The verbs served, as discovery lists them. */
  verbs: string[];
  /** By name: the one verb each answers to, and the kind of its answer. */
  subresources: Record<string, { verb: 'get' | 'create'; kind: string }>;
  columns: AggregatedTableColumn[];
  /** The names of the kind's and the list's definitions in the OpenAPI documents (openapi.ts). */
  openApi: { kind: string; list: string };
}`;

export function resourcesFile(api: AggregatedApi): string {
  const lines = [
    resourceTypes,
    '',
    `export const aggregatedGroup = '${api.group}';`,
    `export const aggregatedVersion = '${api.version}';`,
    `export const aggregatedGroupVersion = '${api.group}/${api.version}';`,
  ];
  for (const kind of api.kinds) {
    const resource = {
      names: { plural: kind.names.plural, singular: kind.names.singular, kind: kind.kind, listKind: kind.names.listKind },
      namespaced: kind.scope === 'Namespaced',
      verbs: kind.verbs,
      subresources: kind.subresources,
      columns: [api.nameColumn, ...kind.printerColumns, api.ageColumn].map(column),
      openApi: { kind: definitionName(api, kind.kind), list: definitionName(api, kind.names.listKind) },
    };
    lines.push('', `/** ${kind.kind}, from schemas/${kind.file}. */`);
    lines.push(`export const ${constName(kind.kind)}: AggregatedResource = ${JSON.stringify(resource, null, 2)};`);
  }
  lines.push(
    '',
    '/** In the order discovery and the OpenAPI documents list them. */',
    `export const aggregatedResources: AggregatedResource[] = [${api.kinds.map((k) => constName(k.kind)).join(', ')}];`,
    '',
  );
  return lines.join('\n');
}
