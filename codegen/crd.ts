// Stage: apiextensions.k8s.io/v1 CustomResourceDefinition for a kind, refs inlined, codegen markers removed.
import { stringify } from 'yaml';
import type { JsonSchema } from './json-schema.ts';
import type { KindSource } from './load.ts';
import { commonTypeKey, kubernetesTypeKey } from './resolve.ts';

function crdName(kind: KindSource): string {
  return `${kind.names.plural}.${kind.group}`;
}

export function crdPath(kind: KindSource): string {
  return `config/crd/bases/${kind.group}_${kind.names.plural}.yaml`;
}

/**
 * The CRD form of a resolved schema. Inside inlined Kubernetes types only the outermost description
 * is kept: the core types' own descriptions would push the CRDs past the 256 KiB that client-side
 * `kubectl apply` can store in its last-applied annotation.
 */
function crdSchema(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown, insideKubernetesType: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, insideKubernetesType));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as JsonSchema;
    const isKubernetesRoot = typeof obj[kubernetesTypeKey] === 'string';
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(obj)) {
      if (key === kubernetesTypeKey || key === commonTypeKey) continue;
      if (key === 'description' && insideKubernetesType) continue;
      if (key === 'properties') {
        out.properties = Object.fromEntries(
          Object.entries(value as JsonSchema).map(([k, v]) => [k, walk(v, insideKubernetesType || isKubernetesRoot)]),
        );
      } else if (key === 'default' || key === 'enum' || key === 'x-kubernetes-validations') {
        out[key] = value;
      } else {
        out[key] = walk(value, insideKubernetesType || isKubernetesRoot);
      }
    }
    return out;
  };
  return walk(schema, false) as JsonSchema;
}

export function buildCrd(kind: KindSource, resolved: JsonSchema): JsonSchema {
  const schema = crdSchema(resolved);
  const properties = (schema.properties ?? {}) as JsonSchema;
  const openAPIV3Schema = {
    ...schema,
    type: 'object',
    properties: {
      apiVersion: {
        type: 'string',
        description: 'The versioned schema of this representation of an object; here always coder.com/v1alpha1.',
      },
      kind: { type: 'string', description: `The REST resource this object represents; here always ${kind.kind}.` },
      metadata: { type: 'object' },
      ...properties,
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(kind) },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: kind.names.listKind,
        plural: kind.names.plural,
        singular: kind.names.singular,
        ...(kind.names.shortNames?.length ? { shortNames: kind.names.shortNames } : {}),
        ...(kind.names.categories?.length ? { categories: kind.names.categories } : {}),
      },
      scope: kind.scope,
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          ...(kind.printerColumns.length ? { additionalPrinterColumns: kind.printerColumns } : {}),
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}

export function crdYaml(kind: KindSource, resolved: JsonSchema): string {
  return stringify(buildCrd(kind, resolved), { lineWidth: 0 });
}

export const crdKustomizationPath = 'config/crd/kustomization.yaml';

/**
 * config/crd/kustomization.yaml, listing every generated CRD so `kubectl apply -k config/default` installs
 * the same set as `kubectl apply -f config/crd/bases/`. It sits beside bases/, not in it, so that
 * directory keeps holding only CRDs.
 */
export function crdKustomizationYaml(kinds: KindSource[]): string {
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: kinds.map((kind) => crdPath(kind).slice('config/crd/'.length)).sort(),
  };
  return stringify(kustomization, { lineWidth: 0 });
}
