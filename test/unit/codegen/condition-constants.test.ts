// The condition constants codegen emits: each shared set once, each kind's constant referring to it, and
// the values every kind ends up with, which are exactly the reasons its schema declares, in its order.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { conditionConstants, conditionImports, conditionSetsFile } from '../../../codegen/condition-constants.ts';
import type { ConditionDeclaration, ConditionSet } from '../../../codegen/conditions.ts';
import { apiReference } from '../../../codegen/docs.ts';
import { loadKinds, loadSharedConditions, type KindSource, type ResolvedKind } from '../../../codegen/load.ts';
import { repoRoot, schemasDir } from '../../../codegen/paths.ts';
import * as sharedConstants from '../../../generated/types/conditions.ts';

const set: ConditionSet = {
  file: 'common/conditions/synced.yaml',
  constant: 'SyncedCondition',
  type: 'Synced',
  description: 'Whether it synced.',
  reasons: { Applied: 'True. Applied.', Failed: 'False. Failed.' },
};

function widget(conditions: Record<string, ConditionDeclaration>): KindSource {
  return {
    file: 'widgets.yaml',
    group: 'coder.com',
    version: 'v1alpha1',
    kind: 'Widget',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    printerColumns: [],
    conditions,
    schema: {},
  };
}

describe('condition constants', () => {
  it('emits a shared set once, with its meanings and the kinds that refer to it', () => {
    const text = conditionSetsFile([set], [widget({ Synced: { ...set, shared: set } })]);
    assert.match(
      text,
      /\/\*\* Whether it synced\. Declared in schemas\/common\/conditions\/synced\.yaml for Widget\. \*\/\nexport const SyncedCondition = \{\n {2}type: 'Synced',/,
    );
    assert.match(text, /\/\*\* False\. Failed\. \*\/\n {4}Failed: 'Failed',\n {2}\},\n\} as const;/);
  });

  it('refers to a shared set taken as it is, spreads one the kind extends, and names each reason of any other', () => {
    const as = (decl: Partial<ConditionDeclaration>) =>
      conditionConstants(widget({ Synced: { description: 'Ours.', reasons: set.reasons, shared: set, ...decl } }));
    assert.match(as({}), /\/\*\* Ours\. \*\/\n {2}Synced: SyncedCondition,\n/);
    assert.match(
      as({ reasons: { ...set.reasons, Extra: 'False. Extra.' } }),
      /type: SyncedCondition\.type,\n {4}reasons: \{\n {6}\.\.\.SyncedCondition\.reasons,\n {6}\/\*\* False\. Extra\. \*\/\n {6}Extra: 'Extra',\n {4}\},/,
    );
    const own = as({ reasons: { Applied: 'True. Ours.', Extra: 'False. Extra.', Failed: 'False. Failed.' } });
    assert.match(
      own,
      /\/\*\* True\. Ours\. \*\/\n {6}Applied: SyncedCondition\.reasons\.Applied,\n {6}\/\*\* False\. Extra\. \*\/\n {6}Extra: 'Extra',\n {6}\/\*\* False\. Failed\. \*\/\n {6}Failed: SyncedCondition\.reasons\.Failed,/,
    );
    assert.match(
      as({ reasons: { Failed: 'False. Failed.' } }),
      /reasons: \{\n {6}\/\*\* False\. Failed\. \*\/\n {6}Failed: SyncedCondition\.reasons\.Failed,\n {4}\},/,
    );
    assert.deepEqual(
      conditionImports(widget({ Synced: { description: '', reasons: {}, shared: set }, Ready: { description: '', reasons: {} } })),
      [
        "import type { ConditionChanges, ConditionOf } from '../../src/runtime/conditions.ts';",
        "import { SyncedCondition } from './conditions.ts';",
      ],
    );
  });

  it('emits the literal condition types of each kind', () => {
    const text = conditionConstants(
      widget({ Ready: { description: 'Whether.', reasons: { Up: 'True.' } }, Synced: { ...set, shared: set } }),
    );
    assert.match(
      text,
      /export type WidgetCondition =\n {2}\| ConditionOf<typeof WidgetConditions\.Ready>\n {2}\| ConditionOf<typeof WidgetConditions\.Synced>;\n/,
    );
    assert.match(text, /export type WidgetConditionChanges = ConditionChanges<typeof WidgetConditions>;$/);
  });
});

describe('the generated condition constants of every kind', () => {
  const kinds = loadKinds();
  const sets = loadSharedConditions();

  /** The reasons the kind's YAML gives a type, read without codegen: the shared set less omit, and its own. */
  function declaredReasons(kind: ResolvedKind, type: string): string[] {
    const raw = (parse(readFileSync(join(schemasDir, kind.file), 'utf8')) as Record<string, Record<string, Record<string, unknown>>>)[
      'x-coder-conditions'
    ]![type]!;
    const own = Object.keys((raw.reasons ?? {}) as object);
    if (typeof raw.$ref !== 'string') return own;
    const shared = parse(readFileSync(join(schemasDir, raw.$ref), 'utf8')) as { reasons: Record<string, string> };
    const omitted = (raw.omit ?? []) as string[];
    return [...new Set([...Object.keys(shared.reasons).filter((r) => !omitted.includes(r)), ...own])];
  }

  for (const kind of kinds) {
    it(`${kind.kind}Conditions holds exactly the reasons schemas/${kind.file} declares, in its order`, async () => {
      const module = (await import(join(repoRoot, 'generated/types', `${kind.names.singular}.ts`))) as Record<string, unknown>;
      const constants = module[`${kind.kind}Conditions`] as Record<string, { type: string; reasons: Record<string, string> }>;
      assert.deepEqual(Object.keys(constants), Object.keys(kind.conditions));
      for (const [type, decl] of Object.entries(kind.conditions)) {
        const constant = constants[type]!;
        assert.equal(constant.type, type);
        assert.deepEqual(
          Object.entries(constant.reasons),
          Object.keys(decl.reasons).map((r) => [r, r]),
          `${kind.kind} ${type}`,
        );
        assert.deepEqual(Object.keys(constant.reasons).sort(), declaredReasons(kind, type).sort(), `${kind.kind} ${type}`);
      }
    });
  }

  it('shares one constant per shared set, equal to what its file declares', () => {
    const exported = sharedConstants as Record<string, { type: string; reasons: Record<string, string> }>;
    assert.deepEqual(Object.keys(exported).sort(), sets.map((s) => s.constant).sort());
    for (const s of sets) {
      assert.deepEqual(exported[s.constant], { type: s.type, reasons: Object.fromEntries(Object.keys(s.reasons).map((r) => [r, r])) });
    }
  });

  it('lists every reason of every kind in the API reference, with the meaning the kind gives it', () => {
    const reference = apiReference(kinds);
    for (const kind of kinds) {
      const section = reference.slice(reference.indexOf(`## ${kind.kind}\n`)).split('\n## ')[0]!;
      for (const [type, decl] of Object.entries(kind.conditions)) {
        const table = section.slice(section.indexOf(`| \`${type}\` | |`));
        for (const [reason, meaning] of Object.entries(decl.reasons)) {
          assert.ok(
            table.includes(`| | \`${reason}\` | ${meaning.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()} |`),
            `${kind.kind} ${type} ${reason}`,
          );
        }
      }
    }
  });
});
