// Every x-kubernetes-validations rule of every kind: objects it accepts, and objects it rejects with its
// own message at the API server's field path. A rule without a row here fails the coverage test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindValidators } from '../../../generated/validators/index.ts';
import { goValue } from '../../../src/validation/go-format.ts';
import type { Rule, StructuralNode } from '../../../src/validation/structural.ts';
import { runValidation } from '../../../src/validation/validate.ts';
import { validatorFor } from '../../../src/validation/validator-lookup.ts';
import { ruleCases as cases, type Example } from './rule-cases.ts';

/** Every rule of a schema, once per place it applies (a shared subtree counts at each use). */
function rulesOf(node: StructuralNode | undefined, out: Rule[] = []): Rule[] {
  if (!node) return out;
  out.push(...(node.rules ?? []));
  for (const child of Object.values(node.properties ?? {})) rulesOf(child, out);
  rulesOf(node.items, out);
  rulesOf(node.additionalProperties, out);
  return out;
}

function findRule(kind: string, prefix: string): Rule {
  const rules = rulesOf(validatorFor(kindValidators, 'coder.com/v1alpha1', kind)!.structure).filter((r) => r.message?.startsWith(prefix));
  assert.equal(rules.length, 1, `exactly one ${kind} rule has a message starting "${prefix}"`);
  return rules[0]!;
}

const validate = (e: Example) => runValidation(validatorFor(kindValidators, 'coder.com/v1alpha1', e.obj.kind as string)!, e.obj, e.old);

describe('CEL rules of the schemas', () => {
  it('has a row with accepted and rejected objects for every rule of every kind', () => {
    const all = kindValidators.flatMap((v) => rulesOf(v.structure).map((r) => ({ kind: v.kind, r })));
    const untested = all
      .filter(({ kind, r }) => !cases.some((c) => c.kind === kind && r.message?.startsWith(c.rule)))
      .map(({ kind, r }) => `${kind}: ${r.rule}`);
    assert.deepEqual(untested, []);
    for (const c of cases) assert.ok(c.accepts.length && c.rejects.length, `${c.kind} "${c.rule}" has accepts and rejects`);
    assert.equal(all.length, 48, 'the schemas have 48 rules; update the count when rules are added');
  });

  for (const c of cases) {
    describe(`${c.kind}: ${c.rule}`, () => {
      const rule = findRule(c.kind, c.rule);
      c.accepts.forEach((example, i) => {
        it(`accepts example ${i + 1}${example.old ? ' (update)' : ''}`, () => {
          assert.deepEqual(validate(example), []);
        });
      });
      c.rejects.forEach((example, i) => {
        it(`rejects example ${i + 1}${example.old ? ' (update)' : ''} at ${example.path} with the rule's message`, () => {
          const shown = example.value === undefined ? '' : `${goValue(example.value)}: `;
          const expected = {
            path: example.path,
            type: 'Invalid value',
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${shown}${rule.message}`,
          };
          const errors = validate(example);
          assert.deepEqual(
            errors.filter((e) => e.message.endsWith(rule.message!)),
            [expected],
            JSON.stringify(errors, null, 1),
          );
        });
      });
    });
  }
});
