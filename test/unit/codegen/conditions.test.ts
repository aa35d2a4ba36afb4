// The x-coder-conditions stage: shared condition sets merged into a kind's declarations, and every way an
// entry can break the rules reported with the schema file and the condition type.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { loadConditionSets, resolveConditions, unreferencedSets, type ConditionSet } from '../../../codegen/conditions.ts';
import { loadKinds } from '../../../codegen/load.ts';
import { SchemaRuleError } from '../../../codegen/schema-rule-error.ts';
import { tempDir } from '../../harness/temp-dir.ts';

const synced = {
  type: 'Synced',
  description: 'Whether the last change in Coder succeeded.',
  reasons: { Applied: 'True. Applied.', Forbidden: 'False. Refused.', RateLimited: 'False. 429.', CoderAPIError: 'False. Other.' },
};

/** A schemas/ directory holding `files` (objects are written as YAML). */
function schemas(files: Record<string, unknown>): string {
  const dir = tempDir('conditions');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), typeof content === 'string' ? content : stringify(content));
  }
  return dir;
}

/** The declarations of `entries` in widgets.yaml, with common/conditions/synced.yaml (or `sets`) beside it, and the problems. */
function resolve(entries: Record<string, unknown>, sets: Record<string, unknown> = { 'common/conditions/synced.yaml': synced }) {
  const dir = schemas(sets);
  const problems: string[] = [];
  const loaded = loadConditionSets(dir, problems);
  const conditions = resolveConditions('widgets.yaml', entries, dir, loaded, problems);
  return { conditions, problems, sets: loaded };
}

describe('x-coder-conditions', () => {
  it('keeps a declaration of its own as written', () => {
    const { conditions, problems } = resolve({ Ready: { description: 'Whether it works.', reasons: { Working: 'True. Works.' } } });
    assert.deepEqual(problems, []);
    assert.deepEqual(conditions, { Ready: { description: 'Whether it works.', reasons: { Working: 'True. Works.' } } });
  });

  it('takes a shared set as it is: its description, reasons and order, named after its file', () => {
    const { conditions, problems, sets } = resolve({ Synced: { $ref: './common/conditions/synced.yaml' } });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      sets.map((s) => [s.file, s.constant, s.type]),
      [['common/conditions/synced.yaml', 'SyncedCondition', 'Synced']],
    );
    assert.equal(conditions.Synced!.description, synced.description);
    assert.deepEqual(conditions.Synced!.reasons, synced.reasons);
    assert.equal(conditions.Synced!.shared, sets[0]);
  });

  it("lets the kind's description and meanings win, keeping the shared order", () => {
    const { conditions, problems } = resolve({
      Synced: { $ref: './common/conditions/synced.yaml', description: 'Ours.', reasons: { Applied: null, RateLimited: 'False. Ours.' } },
    });
    assert.deepEqual(problems, []);
    assert.equal(conditions.Synced!.description, 'Ours.');
    assert.deepEqual(Object.entries(conditions.Synced!.reasons), [
      ['Applied', 'True. Applied.'],
      ['Forbidden', 'False. Refused.'],
      ['RateLimited', 'False. Ours.'],
      ['CoderAPIError', 'False. Other.'],
    ]);
  });

  it('places a reason of its own before the shared reason that follows it, or after all of them', () => {
    const { conditions, problems } = resolve({
      Synced: {
        $ref: './common/conditions/synced.yaml',
        reasons: {
          AlreadyExists: 'False. Exists.',
          Forbidden: null,
          SecretWriteFailed: 'False. Secret.',
          RateLimited: 'False. Ours.',
          Last: 'False. Last.',
        },
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.keys(conditions.Synced!.reasons), [
      'Applied',
      'AlreadyExists',
      'Forbidden',
      'SecretWriteFailed',
      'RateLimited',
      'CoderAPIError',
      'Last',
    ]);
  });

  it('leaves out the shared reasons the kind omits', () => {
    const { conditions, problems } = resolve({ Synced: { $ref: './common/conditions/synced.yaml', omit: ['Forbidden', 'RateLimited'] } });
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.keys(conditions.Synced!.reasons), ['Applied', 'CoderAPIError']);
  });

  const where = 'schemas/widgets.yaml: x-coder-conditions.Synced';
  const refusals: [string, Record<string, unknown>, string][] = [
    [
      'a $ref to a file that does not exist',
      { $ref: './common/conditions/missing.yaml' },
      `${where}: $ref ./common/conditions/missing.yaml does not exist (schemas/common/conditions/missing.yaml)`,
    ],
    [
      'a $ref to a file that is not a condition set',
      { $ref: './common/other.yaml' },
      `${where}: $ref ./common/other.yaml is not a condition set; refer to a file in schemas/common/conditions/`,
    ],
    [
      'shared reasons listed in another order',
      { $ref: './common/conditions/synced.yaml', reasons: { RateLimited: null, Applied: 'True. Ours.' } },
      `${where}: lists Applied after RateLimited, but common/conditions/synced.yaml orders them Applied, Forbidden, RateLimited; a shared set keeps its order (list its reasons in that order, each own reason before the shared one it precedes)`,
    ],
    [
      'an unknown key',
      { $ref: './common/conditions/synced.yaml', reason: {} },
      `${where}: unknown key "reason" (allowed: $ref, description, reasons, omit)`,
    ],
    [
      'an unknown key without a $ref',
      { description: 'x.', reasons: { A: 'True.' }, omit: ['A'] },
      `${where}: unknown key "omit" (allowed: description, reasons)`,
    ],
    [
      'a reason of its own without a meaning',
      { $ref: './common/conditions/synced.yaml', reasons: { Extra: null } },
      `${where}: reason Extra has no meaning (only a shared reason may be listed without one)`,
    ],
    [
      'a meaning that is not a sentence',
      { $ref: './common/conditions/synced.yaml', reasons: { Extra: 3 } },
      `${where}: the meaning of reason Extra must be a sentence`,
    ],
    [
      'an omitted reason the set does not have',
      { $ref: './common/conditions/synced.yaml', omit: ['Gone'] },
      `${where}: omit names "Gone", which common/conditions/synced.yaml does not declare`,
    ],
    [
      'a reason both omitted and listed',
      { $ref: './common/conditions/synced.yaml', omit: ['Forbidden'], reasons: { Forbidden: 'False. x.' } },
      `${where}: reason Forbidden is both omitted and listed`,
    ],
    [
      'every reason omitted',
      { $ref: './common/conditions/synced.yaml', omit: ['Applied', 'Forbidden', 'RateLimited', 'CoderAPIError'] },
      `${where}: declares no reason`,
    ],
    ['a declaration without a description', { reasons: { A: 'True.' } }, `${where}: description must be a sentence`],
    [
      'a reason that is not a CamelCase word',
      { description: 'x.', reasons: { 'not-camel': 'True.' } },
      `${where}: reason "not-camel" is not a CamelCase word`,
    ],
    [
      'a declaration that is not an object',
      'Synced' as never,
      `${where}: must be a declaration ({description, reasons}) or a $ref to a condition set`,
    ],
  ];
  for (const [what, entry, problem] of refusals) {
    it(`refuses ${what}, naming the schema file and the condition`, () => {
      const { problems } = resolve({ Synced: entry }, { 'common/conditions/synced.yaml': synced, 'common/other.yaml': { type: 'object' } });
      assert.deepEqual(problems, [problem]);
    });
  }

  it('refuses a $ref to the set of another condition type', () => {
    const { problems } = resolve({ Ready: { $ref: './common/conditions/synced.yaml' } });
    assert.deepEqual(problems, [
      'schemas/widgets.yaml: x-coder-conditions.Ready: $ref ./common/conditions/synced.yaml declares the condition type Synced, not Ready',
    ]);
  });

  it('refuses a shared set with unknown keys, a missing part or a reason without meaning', () => {
    const dir = schemas({
      'common/conditions/broken.yaml': { type: 'Broken', reasons: { Fine: 'True.', Empty: null }, extends: './synced.yaml' },
    });
    const problems: string[] = [];
    loadConditionSets(dir, problems);
    assert.deepEqual(problems, [
      'schemas/common/conditions/broken.yaml: unknown key "extends" (allowed: type, description, reasons)',
      'schemas/common/conditions/broken.yaml: missing description',
      'schemas/common/conditions/broken.yaml: reason Empty has no meaning (only a shared reason may be listed without one)',
    ]);
  });

  it('names the shared sets no kind refers to', () => {
    const set: ConditionSet = { file: 'common/conditions/synced.yaml', constant: 'SyncedCondition', ...synced };
    assert.deepEqual(unreferencedSets([set], [{ conditions: {} }]), [
      'schemas/common/conditions/synced.yaml: no kind refers to it; delete it or $ref it',
    ]);
    assert.deepEqual(unreferencedSets([set], [{ conditions: { Synced: { description: '', reasons: {}, shared: set } } }]), []);
  });

  it('fails loading the kinds with every problem in one message', () => {
    const kind = { group: 'coder.com', version: 'v1alpha1', kind: 'Widget', scope: 'Namespaced', names: {}, schema: { type: 'object' } };
    const dir = schemas({
      'common/conditions/synced.yaml': synced,
      'widgets.yaml': { ...kind, 'x-coder-conditions': { Synced: { $ref: './common/conditions/synced.yaml', omit: ['Nope'] } } },
      'gadgets.yaml': { ...kind, 'x-coder-conditions': { Ready: { $ref: './common/conditions/ready.yaml' } } },
    });
    assert.throws(
      () => loadKinds(dir),
      (err: unknown) =>
        err instanceof SchemaRuleError &&
        err.message ===
          'x-coder-conditions breaks the rules (schemas/README.md):\n' +
            '  schemas/gadgets.yaml: x-coder-conditions.Ready: $ref ./common/conditions/ready.yaml does not exist (schemas/common/conditions/ready.yaml)\n' +
            '  schemas/widgets.yaml: x-coder-conditions.Synced: omit names "Nope", which common/conditions/synced.yaml does not declare',
    );
  });
});
