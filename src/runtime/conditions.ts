// metav1.Condition semantics: one condition per type, observedGeneration on each, and a
// lastTransitionTime that changes only when the status does.
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** A condition type as codegen declares it (generated/types/*.ts): its type and its reasons, as literals. */
export interface ConditionDefinition {
  readonly type: string;
  readonly reasons: { readonly [name: string]: string };
}

/**
 * A condition of type `Type` with one of the reasons `Reason`: what a builder returns that decides only some of
 * a type's reasons, or that serves several declarations of a type (generic in the declaration, where
 * `ConditionOf` cannot be resolved).
 */
export type ConditionWith<Type extends string, Reason extends string> = {
  type: Type;
  status: Condition['status'];
  reason: Reason;
  message: string;
};

/**
 * A condition of the type `D` declares: `D`'s type and one of `D`'s reasons, so a misspelt reason or one of
 * another type does not compile. For a union of definitions, the union of their conditions.
 */
export type ConditionOf<D extends ConditionDefinition> = D extends ConditionDefinition
  ? ConditionWith<D['type'], D['reasons'][keyof D['reasons']]>
  : never;

/**
 * The conditions a reconcile sets for a kind whose definitions are `S` (its generated `<Kind>Conditions`),
 * keyed by type, so `{ [C.SpecValid.type]: condition }` checks the condition against SpecValid; undefined
 * removes the type.
 */
export type ConditionChanges<S extends { readonly [name: string]: ConditionDefinition }> = {
  [K in keyof S as S[K]['type']]?: ConditionOf<S[K]> | undefined;
};

/** Seconds precision, like metav1.Time, so a read-back value compares equal. */
export function nowTime(now = new Date()): string {
  return new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The conditions with `input` set; others keep their order and values. */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  generation: number | undefined,
  now = new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: previous && previous.status === input.status ? previous.lastTransitionTime : nowTime(now),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
