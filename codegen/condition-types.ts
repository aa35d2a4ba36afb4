// Stage: status.conditions names the kind's condition types, taken from x-coder-conditions, so
// `kubectl explain <kind>.status.conditions` lists every type the kind reports and never a stale list.
import type { JsonSchema } from './json-schema.ts';
import type { ResolvedKind } from './load.ts';

/** a; a and b; a, b and c. */
export function joinedList(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function withConditionTypesListed(kind: ResolvedKind): ResolvedKind {
  const status = (kind.resolved.properties as Record<string, JsonSchema> | undefined)?.status;
  const conditions = (status?.properties as Record<string, JsonSchema> | undefined)?.conditions;
  const types = Object.keys(kind.conditions);
  if (!conditions || !types.length) return kind;
  const own = (
    (kind.schema.properties as Record<string, JsonSchema> | undefined)?.status?.properties as Record<string, JsonSchema> | undefined
  )?.conditions?.description;
  if (own !== undefined) {
    throw new Error(
      `schemas/${kind.file}: remove the description of status.conditions; codegen lists the types of x-coder-conditions there`,
    );
  }
  const description = `${String(conditions.description ?? '')} Types: ${joinedList(types)}.`;
  const statusProperties = { ...(status!.properties as Record<string, JsonSchema>), conditions: { ...conditions, description } };
  const properties = { ...(kind.resolved.properties as Record<string, JsonSchema>), status: { ...status!, properties: statusProperties } };
  return { ...kind, resolved: { ...kind.resolved, properties } };
}
