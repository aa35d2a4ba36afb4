// Stage: the condition constants in TypeScript. generated/types/conditions.ts holds each shared condition set
// once; a kind's <Kind>Conditions refers to the sets its schema refers to, so that code shared by kinds uses one
// constant, and lists its own reasons. Each kind also gets <Kind>Condition and <Kind>ConditionChanges, the
// literal types of src/runtime/conditions.ts, so that a reason of another type does not compile.
import { joinedList } from './condition-types.ts';
import type { ConditionDeclaration, ConditionSet } from './conditions.ts';
import { docComment } from './doc-comment.ts';
import type { KindSource } from './load.ts';

/** Where generated/types/*.ts import the condition types from. */
const runtimeConditions = '../../src/runtime/conditions.ts';

/** `reason: value,` lines, each after the doc comment of its meaning. */
function reasonLines(reasons: Record<string, string>, value: (reason: string) => string, indent: string): string[] {
  return Object.entries(reasons).flatMap(([reason, meaning]) => [
    `${indent}${docComment(meaning)}`,
    `${indent}${reason}: ${value(reason)},`,
  ]);
}

const literal = (text: string) => `'${text}'`;

/** The kinds whose schema refers to `set`. */
function kindsReferring(set: ConditionSet, kinds: KindSource[]): string[] {
  return kinds.filter((k) => Object.values(k.conditions).some((d) => d.shared?.file === set.file)).map((k) => k.kind);
}

/** generated/types/conditions.ts: each shared condition set as a constant. */
export function conditionSetsFile(sets: ConditionSet[], kinds: KindSource[]): string {
  return sets
    .map((set) =>
      [
        docComment(`${set.description} Declared in schemas/${set.file} for ${joinedList(kindsReferring(set, kinds))}.`),
        `export const ${set.constant} = {`,
        `  type: ${literal(set.type)},`,
        '  reasons: {',
        ...reasonLines(set.reasons, literal, '    '),
        '  },',
        '} as const;',
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * One condition type of a kind. A shared set taken as it is is the set's constant; one with reasons of the
 * kind's own after the shared ones spreads the set's reasons; any other (its own meanings, omitted or
 * interleaved reasons) names each shared reason through the set's constant, in the kind's order.
 */
function declarationLines(type: string, decl: ConditionDeclaration): string[] {
  const head = `  ${docComment(decl.description)}`;
  const block = (typeValue: string, reasons: string[]) => [
    head,
    `  ${type}: {`,
    `    type: ${typeValue},`,
    '    reasons: {',
    ...reasons,
    '    },',
    '  },',
  ];
  const set = decl.shared;
  if (!set) return block(literal(type), reasonLines(decl.reasons, literal, '      '));
  const shared = Object.keys(set.reasons);
  const keys = Object.keys(decl.reasons);
  const sharedFirst = shared.every((reason, i) => keys[i] === reason && decl.reasons[reason] === set.reasons[reason]);
  if (sharedFirst && keys.length === shared.length) return [head, `  ${type}: ${set.constant},`];
  if (sharedFirst) {
    const own = Object.fromEntries(Object.entries(decl.reasons).slice(shared.length));
    return block(`${set.constant}.type`, [`      ...${set.constant}.reasons,`, ...reasonLines(own, literal, '      ')]);
  }
  const value = (reason: string) => (reason in set.reasons ? `${set.constant}.reasons.${reason}` : literal(reason));
  return block(`${set.constant}.type`, reasonLines(decl.reasons, value, '      '));
}

/** The imports the condition part of a kind's types file needs. */
export function conditionImports(kind: KindSource): string[] {
  const constants = [...new Set(Object.values(kind.conditions).flatMap((d) => (d.shared ? [d.shared.constant] : [])))].sort();
  return [
    `import type { ConditionChanges, ConditionOf } from '${runtimeConditions}';`,
    ...(constants.length ? [`import { ${constants.join(', ')} } from './conditions.ts';`] : []),
  ];
}

/** <Kind>Conditions, <Kind>Condition and <Kind>ConditionChanges. */
export function conditionConstants(kind: KindSource): string {
  const name = `${kind.kind}Conditions`;
  const types = Object.keys(kind.conditions);
  return [
    docComment(`Condition types and reasons of ${kind.kind}, as declared in schemas/${kind.file}.`),
    `export const ${name} = {`,
    ...Object.entries(kind.conditions).flatMap(([type, decl]) => declarationLines(type, decl)),
    '} as const;',
    '',
    docComment(`A condition of ${kind.kind}: one of its types, with a reason of that type.`),
    `export type ${kind.kind}Condition =`,
    ...(types.length
      ? types.map((type, i) => `  | ConditionOf<typeof ${name}.${type}>${i === types.length - 1 ? ';' : ''}`)
      : ['  never;']),
    '',
    docComment(`The conditions one ${kind.kind} reconcile sets, by type (undefined removes one).`),
    `export type ${kind.kind}ConditionChanges = ConditionChanges<typeof ${name}>;`,
  ].join('\n');
}
