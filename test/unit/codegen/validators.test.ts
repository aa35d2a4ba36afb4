// The validators stage: what it accepts from a schema, what stops it, and the shape of its output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadKinds } from '../../../codegen/load.ts';
import { ajvSchema, structuralNode, structuralRule, validatorFile, validatorsIndexFile } from '../../../codegen/validators.ts';

describe('validators stage', () => {
  it('marks rules that read oldSelf as transition rules', () => {
    assert.deepEqual(structuralRule({ rule: 'self == oldSelf', message: 'immutable' }, 'x'), {
      rule: 'self == oldSelf',
      message: 'immutable',
      transition: true,
    });
    assert.deepEqual(structuralRule({ rule: "self.startsWith('/')" }, 'x'), { rule: "self.startsWith('/')" });
  });

  it('stops on a rule that does not parse, or calls a function the runtime lacks', () => {
    assert.throws(() => structuralRule({ rule: 'self ==' }, 'schemas/x.yaml.spec'), /schemas\/x\.yaml\.spec: CEL rule does not parse/);
    assert.throws(() => structuralRule({ rule: 'isURL(self)' }, 'x'), /uses isURL, which src\/validation\/cel-env\.ts does not provide/);
    assert.throws(() => structuralRule({ rule: 'self.x', messageExpression: "'m'" }, 'x'), /messageExpression not supported/);
  });

  it('stops on a fieldPath that names no field, a keyword it does not check, or a bytes/duration format', () => {
    const rule = { rule: 'true', fieldPath: '.nope' };
    assert.throws(
      () => structuralNode({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [rule] }, 'x'),
      /fieldPath \.nope does not name a field/,
    );
    assert.throws(() => structuralNode({ type: 'integer', multipleOf: 2 }, 'x'), /keyword\(s\) multipleOf not supported/);
    assert.throws(() => structuralNode({ type: 'string', format: 'byte' }, 'x'), /format byte is a CEL bytes value/);
  });

  it('stops on a format the API server checks and the validators do not, and drops formats it ignores', () => {
    assert.throws(() => ajvSchema({ type: 'string', format: 'email' }, 'x'), /format email is checked by the API server/);
    assert.deepEqual(ajvSchema({ type: 'string', format: 'my-format' }, 'x'), { type: 'string' });
    assert.deepEqual(ajvSchema({ type: 'string', format: 'uuid' }, 'x'), { type: 'string', format: 'uuid' });
  });

  it('checks an int-or-string as integer or string, each branch on its own', () => {
    const schema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    assert.deepEqual(ajvSchema(schema, 'x'), { type: ['integer', 'string'], anyOf: [{ type: 'integer' }, { type: 'string' }] });
    assert.deepEqual(structuralNode(schema, 'x'), { intOrString: true });
  });

  it('writes a typed module per kind, with repeated Kubernetes types emitted once', () => {
    const kind = loadKinds().find((k) => k.kind === 'CoderControlPlane')!;
    const text = validatorFile(kind, kind.resolved);
    assert.match(text, /^\/\/ @ts-nocheck/);
    assert.match(text, /export function validateCoderControlPlane\(obj: unknown, old\?: unknown\): ValidationError\[\]/);
    assert.match(
      text,
      /export const coderControlPlaneValidator: KindValidator = \{\n  apiVersion: 'coder\.com\/v1alpha1',\n  kind: 'CoderControlPlane',/,
    );
    assert.match(text, /hasRules: true/);
    assert.match(text, /^const shared0: StructuralNode = /m);
    assert.match(text, /\$ref":"#\/\$defs\/d0"/);
    assert.equal(validatorFile(kind, kind.resolved), text, 'the same schema gives the same file');
  });

  it('indexes the validator of every kind in schemas/, in file order', () => {
    const kinds = loadKinds();
    const text = validatorsIndexFile(kinds);
    const listed = text.slice(text.indexOf('export const kindValidators')).match(/^ {2}\w+Validator,$/gm);
    assert.deepEqual(
      listed,
      kinds.map((k) => `  ${k.kind.charAt(0).toLowerCase()}${k.kind.slice(1)}Validator,`),
    );
    for (const k of kinds) assert.match(text, new RegExp(`from '\\./${k.names.singular}\\.ts';`));
  });
});
