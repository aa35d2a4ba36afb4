// Stage: TypeScript types per kind (object, list, spec, status) with json-schema-to-typescript, plus the
// condition constants (condition-constants.ts). Kubernetes types become @kubernetes/client-node models.
import { compile } from 'json-schema-to-typescript';
import { commonTypeName } from './common-type-name.ts';
import { conditionConstants, conditionImports } from './condition-constants.ts';
import { docComment } from './doc-comment.ts';
import type { JsonSchema } from './json-schema.ts';
import type { CommonSchema, KindSource } from './load.ts';
import { commonTypeKey, kubernetesTypeKey } from './resolve.ts';

/** io.k8s.api.core.v1.EnvVar → V1EnvVar; io.k8s.api.rbac.v1.PolicyRule → V1PolicyRule. */
export function clientNodeTypeName(openApiName: string): string {
  const parts = openApiName.split('.');
  const kind = parts.at(-1)!;
  const version = parts.at(-2)!;
  if (openApiName === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return 'IntOrString';
  if (openApiName === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return 'string';
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

interface TypeRefs {
  kubernetes: Set<string>;
  common: Set<string>;
}

/**
 * The schema json-schema-to-typescript sees: referenced types as `tsType`, named interfaces for every
 * object with properties (titled by their path, e.g. CoderControlPlaneSpecDatabase), CRD-only
 * keywords removed.
 */
export function typeSchema(schema: JsonSchema, title: string, refs: TypeRefs, isRoot = true): JsonSchema {
  if (typeof schema[kubernetesTypeKey] === 'string') {
    const name = clientNodeTypeName(schema[kubernetesTypeKey] as string);
    if (name !== 'string') refs.kubernetes.add(name);
    return { tsType: name, description: schema.description };
  }
  if (!isRoot && typeof schema[commonTypeKey] === 'string') {
    const name = commonTypeName(schema[commonTypeKey] as string);
    refs.common.add(name);
    return { tsType: name, description: schema.description };
  }
  if (schema['x-kubernetes-int-or-string']) return { tsType: 'number | string', description: schema.description };
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || key === 'default' || key === 'format') continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([k, v]) => [k, typeSchema(v as JsonSchema, `${title}${pascal(k)}`, refs, false)]),
      );
    } else if (key === 'items') {
      out.items = typeSchema(value as JsonSchema, `${title}Item`, refs, false);
    } else if (key === 'additionalProperties' && typeof value === 'object') {
      out.additionalProperties = typeSchema(value as JsonSchema, `${title}Value`, refs, false);
    } else out[key] = value;
  }
  if (out.properties) {
    out.title = title;
    if (out.additionalProperties === undefined) out.additionalProperties = false;
  }
  return out;
}

const compileOptions = {
  bannerComment: '',
  additionalProperties: false,
  declareExternallyReferenced: true,
  strictIndexSignatures: true,
  unknownAny: true,
  format: true,
  style: { singleQuote: true, printWidth: 120 },
  ignoreMinAndMaxItems: true,
} as const;

export async function compileType(schema: JsonSchema, name: string): Promise<string> {
  return compile(schema as never, name, compileOptions);
}

export async function commonTypesFile(common: CommonSchema[]): Promise<string> {
  const refs: TypeRefs = { kubernetes: new Set(), common: new Set() };
  const parts: string[] = [];
  for (const { file, schema } of common) {
    const name = commonTypeName(file);
    parts.push(await compileType(typeSchema(schema, name, refs), name));
  }
  return parts.join('\n');
}

/** What the interfaces of a kind's object and list are made of. */
export interface ObjectInterfaces {
  kind: string;
  listKind: string;
  apiVersion: string;
  description: string;
  /** The TypeScript types of the object's and the list's metadata. */
  metadata: [string, string];
  /** Whether the object has a spec (typed `<Kind>Spec`), and whether it is always there. */
  spec: 'required' | 'optional' | undefined;
  /** Whether the object has a status (typed `<Kind>Status`, never required). */
  status: boolean;
}

/** The interfaces of a kind's object and its list, as lines. */
export function objectInterfaces(o: ObjectInterfaces): string[] {
  return [
    docComment(o.description),
    `export interface ${o.kind} {`,
    `  apiVersion: '${o.apiVersion}';`,
    `  kind: '${o.kind}';`,
    `  metadata: ${o.metadata[0]};`,
    ...(o.spec ? [`  spec${o.spec === 'required' ? '' : '?'}: ${o.kind}Spec;`] : []),
    ...(o.status ? [`  status?: ${o.kind}Status;`] : []),
    '}',
    '',
    `export interface ${o.listKind} {`,
    `  apiVersion: '${o.apiVersion}';`,
    `  kind: '${o.listKind}';`,
    `  metadata: ${o.metadata[1]};`,
    `  items: ${o.kind}[];`,
    '}',
  ];
}

export async function kindTypesFile(kind: KindSource, resolved: JsonSchema): Promise<string> {
  const refs: TypeRefs = { kubernetes: new Set(['V1ObjectMeta', 'V1ListMeta']), common: new Set() };
  const props = (resolved.properties ?? {}) as JsonSchema;
  const body: string[] = [];
  for (const part of ['spec', 'status'] as const) {
    if (!props[part]) continue;
    const name = `${kind.kind}${pascal(part)}`;
    body.push(await compileType(typeSchema(props[part] as JsonSchema, name, refs), name));
  }
  const apiVersion = `${kind.group}/${kind.version}`;
  const imports = [
    `import type { ${[...refs.kubernetes].sort().join(', ')} } from '@kubernetes/client-node';`,
    ...(refs.common.size ? [`import type { ${[...refs.common].sort().join(', ')} } from './common.ts';`] : []),
    ...conditionImports(kind),
  ];
  const object = objectInterfaces({
    kind: kind.kind,
    listKind: kind.names.listKind,
    apiVersion,
    description: String(resolved.description ?? kind.kind),
    metadata: ['V1ObjectMeta', 'V1ListMeta'],
    spec: props.spec ? ((resolved.required as string[] | undefined)?.includes('spec') ? 'required' : 'optional') : undefined,
    status: Boolean(props.status),
  });
  return [...imports, '', ...object, '', body.join('\n').trim(), '', conditionConstants(kind), ''].join('\n');
}
