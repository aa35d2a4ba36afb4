// The compatibility rule for embedded Kubernetes types: a CRD field typed as a core type accepts what the
// API server accepts for that type, and merges the way Kubernetes merges it. The dump applies the rule;
// codegen refuses a definitions file that breaks it.
import type { JsonSchema } from './json-schema.ts';

export const quantityDefinition = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** The resource.Quantity syntax that Kubernetes' own CRD generator puts on every Quantity field. */
export const quantityPattern =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/**
 * Structs that embed LocalObjectReference inline. LocalObjectReference is atomic, and Kubernetes' CRD
 * generator carries that to the embedding struct, but the API server's OpenAPI does not.
 */
export const atomicByEmbedding = new Set([
  'io.k8s.api.core.v1.ConfigMapEnvSource',
  'io.k8s.api.core.v1.ConfigMapProjection',
  'io.k8s.api.core.v1.ConfigMapVolumeSource',
  'io.k8s.api.core.v1.SecretEnvSource',
  'io.k8s.api.core.v1.SecretProjection',
]);

/**
 * The API server's OpenAPI lists enums that its Go validation does not enforce as listed: an empty
 * toleration effect matches every effect, an empty operator or pull policy is defaulted. Enums are dropped
 * (the values stay in the descriptions); the API server still validates the objects the operator makes.
 */
export function withoutEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutEnums);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum') continue;
    // Under `properties` the keys are field names (a field may be called "enum"), the values schemas.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, withoutEnums(v)]))
        : withoutEnums(value);
  }
  return out;
}

/** Every way `definitions` breaks the rule, one line each. */
export function compatibilityProblems(definitions: Record<string, JsonSchema>): string[] {
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(definitions)) {
    if (JSON.stringify(schema) !== JSON.stringify(withoutEnums(schema))) {
      problems.push(`${name}: has an enum; Kubernetes accepts values outside the OpenAPI enums of core types`);
    }
    if (atomicByEmbedding.has(name) && schema['x-kubernetes-map-type'] !== 'atomic') {
      problems.push(`${name}: must be x-kubernetes-map-type: atomic, as the LocalObjectReference it embeds`);
    }
  }
  if (definitions[quantityDefinition] && definitions[quantityDefinition]!.pattern !== quantityPattern) {
    problems.push(`${quantityDefinition}: must carry the resource.Quantity pattern, as Kubernetes' CRDs do`);
  }
  return problems;
}
