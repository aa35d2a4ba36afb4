// Updates: transition rules run only when the old value exists; unchanged values are forgiven
// (ratcheting); Kubernetes CEL equality ignores the order of sets and map lists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { celList, celMap, type CelValue } from '@bufbuild/cel';
import { kindValidators } from '../../../generated/validators/index.ts';
import { kubernetesEquals } from '../../../src/validation/cel-equality.ts';
import { compileRule } from '../../../src/validation/cel-env.ts';
import { toCelValue } from '../../../src/validation/cel-value.ts';
import { isUnchanged } from '../../../src/validation/correlation.ts';
import type { StructuralNode } from '../../../src/validation/structural.ts';
import { validateObject } from '../../../src/validation/validator-lookup.ts';
import { providerManifest } from '../../fixtures/coderaiprovider.ts';
import { controlPlaneManifest } from '../../fixtures/codercontrolplane.ts';
import { provisionerManifest } from '../../fixtures/coderprovisioner.ts';
import { templateTestManifest } from '../../fixtures/codertemplatetest.ts';
import { quantityPattern } from '../../../codegen/kubernetes-compat.ts';

const messages = (errors: { message: string }[] | undefined) => (errors ?? []).map((e) => e.message);

describe('transition rules', () => {
  it('do not run on create, where there is no old object', () => {
    assert.deepEqual(validateObject(kindValidators, providerManifest({ type: 'openai' })), []);
  });

  it('run on update against the old value of their node', () => {
    assert.deepEqual(messages(validateObject(kindValidators, providerManifest({ type: 'openai' }), providerManifest())), [
      'Invalid value: "openai": type cannot be changed; Coder cannot change the type of a provider, create a new object instead',
    ]);
  });

  it('do not run for a node that the old object lacks', () => {
    // An object stored before spec.type was required has no old value to compare with.
    const old = providerManifest();
    delete (old.spec as Record<string, unknown>).type;
    const errors = validateObject(kindValidators, providerManifest({ type: 'openai' }), old);
    assert.ok(!messages(errors).some((m) => m.includes('type cannot be changed')), JSON.stringify(errors));
  });

  it('compare lists of type map without regard to order (spec is immutable)', () => {
    const a = [
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ];
    assert.deepEqual(
      validateObject(kindValidators, templateTestManifest({ parameters: [...a].reverse() }), templateTestManifest({ parameters: a })),
      [],
    );
  });
});

describe('ratcheting on update', () => {
  it('forgives an invalid value the update leaves unchanged, and reports one it changes', () => {
    const withMemory = (memory: string) => provisionerManifest({ resources: { requests: { memory } } });
    const stored = withMemory('1 GB');
    assert.deepEqual(
      validateObject(kindValidators, { ...withMemory('1 GB'), metadata: { name: 'provisioner', labels: { a: 'b' } } }, stored),
      [],
    );
    assert.deepEqual(messages(validateObject(kindValidators, withMemory('2 GB'), stored)), [
      `Invalid value: "2 GB": spec.resources.requests.memory in body should match '${quantityPattern}'`,
    ]);
  });

  it('forgives a failing CEL rule whose value did not change', () => {
    const stored = controlPlaneManifest({ expose: { ingress: { host: 'a' }, gateway: { host: 'a', parentRefs: [{ name: 'g' }] } } });
    assert.deepEqual(validateObject(kindValidators, controlPlaneManifest({ ...stored.spec, replicas: 2 }), stored), []);
  });

  it('pairs items of map lists by key and items of atomic lists not at all', () => {
    const schema: StructuralNode = {
      type: 'object',
      properties: {
        byName: {
          type: 'array',
          listType: 'map',
          listMapKeys: ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
        },
        atomic: { type: 'array', items: { type: 'object', properties: { v: { type: 'integer' } } } },
      },
    };
    const old = {
      byName: [
        { name: 'a', v: 1 },
        { name: 'b', v: 2 },
      ],
      atomic: [{ v: 1 }, { v: 2 }],
    };
    const moved = {
      byName: [
        { name: 'b', v: 2 },
        { name: 'a', v: 1 },
      ],
      atomic: [{ v: 2 }, { v: 1 }],
    };
    assert.equal(isUnchanged(moved, old, schema, [{ field: 'byName' }, { index: 0 }, { field: 'v' }]), true);
    assert.equal(isUnchanged(moved, old, schema, [{ field: 'atomic' }, { index: 0 }, { field: 'v' }]), false);
  });
});

describe('CEL values and equality', () => {
  const setSchema: StructuralNode = { type: 'array', listType: 'set', items: { type: 'string' } };
  const bind = (v: unknown, s: StructuralNode) => toCelValue(v, s);

  it('binds integers as int, objects as maps and numbers of number fields as double', () => {
    const schema: StructuralNode = { type: 'object', properties: { n: { type: 'integer' }, d: { type: 'number' } } };
    const bound = toCelValue({ n: 3, d: 2 }, schema);
    assert.ok(bound instanceof Map);
    assert.equal(bound.get('n'), 3n);
    assert.equal(bound.get('d'), 2);
    assert.equal(compileRule('self.n + 1 == 4 && self.d == 2.0')({ self: bound }), true);
  });

  it('treats sets and map lists as equal in any order, atomic lists only in order', () => {
    const rule = compileRule('self == oldSelf');
    assert.equal(rule({ self: bind(['a', 'b'], setSchema), oldSelf: bind(['b', 'a'], setSchema) }), true);
    assert.equal(rule({ self: bind(['a', 'b'], setSchema), oldSelf: bind(['a', 'c'], setSchema) }), false);
    const atomic: StructuralNode = { type: 'array', items: { type: 'string' } };
    assert.equal(rule({ self: bind(['a', 'b'], atomic), oldSelf: bind(['b', 'a'], atomic) }), false);
    assert.equal(compileRule('self != oldSelf')({ self: bind(['a', 'b'], setSchema), oldSelf: bind(['b', 'a'], setSchema) }), false);
  });

  it('compares numbers across int and double, and lists built in an expression in order', () => {
    assert.equal(kubernetesEquals(1n as CelValue, 1 as CelValue), true);
    assert.equal(kubernetesEquals(celList([1n, 2n]), celList([2n, 1n])), false);
    assert.equal(kubernetesEquals(celMap(new Map([['a', 1n]])), celMap(new Map([['a', 1n]]))), true);
    assert.equal(compileRule('[1, 2] == [2, 1]')({ self: null }), false);
  });

  it('matches regular expressions with RE2, where \\s is ASCII white space only', () => {
    const rule = compileRule("self.matches('^\\\\S+$')");
    assert.equal(rule({ self: 'a\u00a0b' }), true);
    assert.equal(rule({ self: 'a b' }), false);
  });
});
