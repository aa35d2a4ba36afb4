// Stage: TypeScript types of the kinds the aggregated API server serves (generated/aggregated/types.ts), with
// json-schema-to-typescript as for the CRD kinds. They type the objects as served: metadata is the ObjectMeta
// of schemas/aggregated/group.yaml, with name and namespace always set (the served schema, like Kubernetes'
// ObjectMeta, requires neither, since a create may use generateName), and spec is always there.
import type { AggregatedApi } from './aggregated-load.ts';
import type { JsonSchema } from './json-schema.ts';
import { compileType, objectInterfaces, typeSchema } from './types.ts';

async function compiled(schema: JsonSchema, name: string): Promise<string> {
  return compileType(typeSchema(schema, name, { kubernetes: new Set(), common: new Set() }), name);
}

export async function aggregatedTypesFile(api: AggregatedApi): Promise<string> {
  const apiVersion = `${api.group}/${api.version}`;
  const parts = [
    await compiled({ ...api.objectMeta, required: ['name', 'namespace'] }, 'AggregatedObjectMeta'),
    await compiled(api.listMeta, 'AggregatedListMeta'),
  ];
  for (const kind of api.kinds) {
    const props = (kind.resolved.properties ?? {}) as Record<string, JsonSchema>;
    parts.push(
      [
        ...objectInterfaces({
          kind: kind.kind,
          listKind: kind.names.listKind,
          apiVersion,
          description: String(kind.resolved.description ?? kind.kind),
          metadata: ['AggregatedObjectMeta', 'AggregatedListMeta'],
          spec: props.spec ? 'required' : undefined,
          status: Boolean(props.status),
        }),
        '',
      ].join('\n'),
    );
    for (const part of ['spec', 'status'] as const) {
      if (props[part]) parts.push(await compiled(props[part], `${kind.kind}${part === 'spec' ? 'Spec' : 'Status'}`));
    }
  }
  parts.push(
    '/** Every kind the aggregated API server serves. */',
    `export type AggregatedObject = ${api.kinds.map((k) => k.kind).join(' | ')};`,
    '',
  );
  return parts.join('\n');
}
