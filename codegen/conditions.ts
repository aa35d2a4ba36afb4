// Stage: the condition types of each kind (x-coder-conditions), with the shared condition sets of
// schemas/common/conditions/ merged in and checked. A kind's entry either declares a type itself
// ({description, reasons}) or refers to a shared set ($ref) and may give its own description, its own
// meaning of a shared reason, reasons of its own, and shared reasons it does not report (omit).
// Every problem is reported, each naming the schema file and the condition type.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { parse } from 'yaml';
import { commonTypeName } from './common-type-name.ts';

/** A condition type with its reasons declared once, in schemas/common/conditions/<file>.yaml. */
export interface ConditionSet {
  /** Path relative to schemas/, e.g. common/conditions/synced.yaml */
  file: string;
  /** The constant codegen emits for it in generated/types/conditions.ts, e.g. SyncedCondition. */
  constant: string;
  type: string;
  description: string;
  /** Reason → meaning, in the order of the file. */
  reasons: Record<string, string>;
}

/** One condition type of a kind, as its users and the generated code see it. */
export interface ConditionDeclaration {
  description: string;
  /** Every reason the kind reports → its meaning (the kind's own, or the shared one), in order. */
  reasons: Record<string, string>;
  /** The shared set the kind's entry refers to. */
  shared?: ConditionSet;
}

export const conditionSetsDir = join('common', 'conditions');

const setKeys = ['type', 'description', 'reasons'];
const ownKeys = ['description', 'reasons'];
const refKeys = ['$ref', 'description', 'reasons', 'omit'];

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const quoted = (items: string[]) => items.map((i) => `"${i}"`).join(', ');

function unknownKeys(entry: Record<string, unknown>, allowed: string[], where: string, problems: string[]): void {
  const unknown = Object.keys(entry).filter((k) => !allowed.includes(k));
  if (unknown.length) problems.push(`${where}: unknown key ${quoted(unknown)} (allowed: ${allowed.join(', ')})`);
}

/** Reason → meaning: a sentence, or null for a reason of the shared set (`isShared`) that keeps the shared meaning. */
function reasonsOf(
  raw: unknown,
  where: string,
  problems: string[],
  isShared: (reason: string) => boolean = () => false,
): Record<string, string | null> {
  if (!isRecord(raw)) {
    problems.push(`${where}: reasons must map each reason to its meaning`);
    return {};
  }
  const reasons: Record<string, string | null> = {};
  for (const [reason, meaning] of Object.entries(raw)) {
    if (!/^[A-Z][A-Za-z0-9]*$/.test(reason)) problems.push(`${where}: reason "${reason}" is not a CamelCase word`);
    if (isText(meaning) || (meaning === null && isShared(reason))) reasons[reason] = meaning;
    else if (meaning === null) problems.push(`${where}: reason ${reason} has no meaning (only a shared reason may be listed without one)`);
    else problems.push(`${where}: the meaning of reason ${reason} must be a sentence`);
  }
  return reasons;
}

/** Every schemas/common/conditions/*.yaml; problems are added to `problems`. */
export function loadConditionSets(dir: string, problems: string[]): ConditionSet[] {
  const setsDir = join(dir, conditionSetsDir);
  if (!existsSync(setsDir)) return [];
  return readdirSync(setsDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const file = join(conditionSetsDir, f);
      const where = `schemas/${file}`;
      const doc = parse(readFileSync(join(dir, file), 'utf8')) as unknown;
      const raw = isRecord(doc) ? doc : {};
      unknownKeys(raw, setKeys, where, problems);
      for (const key of setKeys.filter((k) => raw[k] === undefined)) problems.push(`${where}: missing ${key}`);
      if (raw.type !== undefined && !(typeof raw.type === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(raw.type))) {
        problems.push(`${where}: type must be a CamelCase condition type`);
      }
      if (raw.description !== undefined && !isText(raw.description)) problems.push(`${where}: description must be a sentence`);
      const reasons = raw.reasons === undefined ? {} : (reasonsOf(raw.reasons, where, problems) as Record<string, string>);
      if (isRecord(raw.reasons) && !Object.keys(reasons).length) problems.push(`${where}: declares no reason`);
      return {
        file,
        constant: `${commonTypeName(f)}Condition`,
        type: String(raw.type ?? ''),
        description: String(raw.description ?? ''),
        reasons,
      };
    });
}

/**
 * The reasons of an entry that refers to `set`: the shared reasons in the shared order, less `omit`, with the
 * entry's meanings where it gives one. A reason of the entry's own stands before the shared reason that
 * follows it in the entry, or after every shared reason when none follows.
 */
function mergedReasons(
  set: ConditionSet,
  entry: Record<string, string | null>,
  omit: Set<string>,
  where: string,
  problems: string[],
): Record<string, string> {
  const shared = Object.keys(set.reasons);
  const merged: Record<string, string> = {};
  let pending: [string, string][] = [];
  let next = 0;
  let previous: string | undefined;
  const keepShared = (until: number) => {
    for (; next < until; next++) if (!omit.has(shared[next]!)) merged[shared[next]!] = set.reasons[shared[next]!]!;
  };
  for (const [reason, meaning] of Object.entries(entry)) {
    const at = shared.indexOf(reason);
    if (at < 0) {
      pending.push([reason, meaning!]);
      continue;
    }
    if (omit.has(reason)) problems.push(`${where}: reason ${reason} is both omitted and listed`);
    if (at < next) {
      problems.push(
        `${where}: lists ${reason} after ${previous}, but ${set.file} orders them ${shared.slice(at, next).join(', ')}; ` +
          'a shared set keeps its order (list its reasons in that order, each own reason before the shared one it precedes)',
      );
      continue;
    }
    keepShared(at);
    for (const [own, text] of pending) merged[own] = text;
    pending = [];
    merged[reason] = meaning ?? set.reasons[reason]!;
    next = at + 1;
    previous = reason;
  }
  keepShared(shared.length);
  for (const [own, text] of pending) merged[own] = text;
  return merged;
}

function referringDeclaration(
  type: string,
  entry: Record<string, unknown>,
  from: string,
  dir: string,
  sets: readonly ConditionSet[],
  where: string,
  problems: string[],
): ConditionDeclaration | undefined {
  unknownKeys(entry, refKeys, where, problems);
  const ref = String(entry.$ref);
  const target = relative(dir, resolvePath(dirname(join(dir, from)), ref));
  const set = sets.find((s) => s.file === target);
  if (!set) {
    problems.push(
      existsSync(join(dir, target))
        ? `${where}: $ref ${ref} is not a condition set; refer to a file in schemas/${conditionSetsDir}/`
        : `${where}: $ref ${ref} does not exist (schemas/${target})`,
    );
    return undefined;
  }
  if (set.type !== type) problems.push(`${where}: $ref ${ref} declares the condition type ${set.type}, not ${type}`);
  if (entry.description !== undefined && !isText(entry.description)) problems.push(`${where}: description must be a sentence`);
  const omitted = entry.omit ?? [];
  if (!Array.isArray(omitted) || omitted.some((r) => typeof r !== 'string')) {
    problems.push(`${where}: omit must list reasons of ${set.file}`);
  }
  const omit = new Set(Array.isArray(omitted) ? omitted.map(String) : []);
  const foreign = [...omit].filter((r) => !(r in set.reasons));
  if (foreign.length) problems.push(`${where}: omit names ${quoted(foreign)}, which ${set.file} does not declare`);
  const own = entry.reasons === undefined ? {} : reasonsOf(entry.reasons, where, problems, (r) => r in set.reasons);
  const reasons = mergedReasons(set, own, omit, where, problems);
  if (!Object.keys(reasons).length) problems.push(`${where}: declares no reason`);
  return { description: isText(entry.description) ? entry.description : set.description, reasons, shared: set };
}

/** The condition types of the kind in schemas/`file` (its x-coder-conditions, `raw`); problems are added to `problems`. */
export function resolveConditions(
  file: string,
  raw: unknown,
  dir: string,
  sets: readonly ConditionSet[],
  problems: string[],
): Record<string, ConditionDeclaration> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) {
    problems.push(`schemas/${file}: x-coder-conditions must map each condition type to its declaration`);
    return {};
  }
  const declarations: Record<string, ConditionDeclaration> = {};
  for (const [type, value] of Object.entries(raw)) {
    const where = `schemas/${file}: x-coder-conditions.${type}`;
    if (!isRecord(value)) {
      problems.push(`${where}: must be a declaration ({description, reasons}) or a $ref to a condition set`);
      continue;
    }
    if (value.$ref !== undefined) {
      const declaration = referringDeclaration(type, value, file, dir, sets, where, problems);
      if (declaration) declarations[type] = declaration;
      continue;
    }
    unknownKeys(value, ownKeys, where, problems);
    if (!isText(value.description)) problems.push(`${where}: description must be a sentence`);
    const reasons = reasonsOf(value.reasons, where, problems) as Record<string, string>;
    if (isRecord(value.reasons) && !Object.keys(reasons).length) problems.push(`${where}: declares no reason`);
    declarations[type] = { description: String(value.description ?? ''), reasons };
  }
  return declarations;
}

/** The sets no kind refers to: declared for nobody, they would only drift. */
export function unreferencedSets(sets: readonly ConditionSet[], kinds: { conditions: Record<string, ConditionDeclaration> }[]): string[] {
  const used = new Set(kinds.flatMap((k) => Object.values(k.conditions).map((d) => d.shared?.file)));
  return sets.filter((s) => !used.has(s.file)).map((s) => `schemas/${s.file}: no kind refers to it; delete it or $ref it`);
}
