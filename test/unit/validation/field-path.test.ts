// Field paths and values printed the way the API server prints them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldPath, openApiPath, pointerSegments } from '../../../src/validation/field-path.ts';
import { goJson, goNumber, goQuote, goValue } from '../../../src/validation/go-format.ts';
import { parseRuleFieldPath } from '../../../src/validation/rule-field-path.ts';
import type { StructuralNode } from '../../../src/validation/structural.ts';

const schema: StructuralNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        extraEnv: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        annotations: { type: 'object', additionalProperties: { type: 'string' } },
        database: { type: 'object', properties: { connectionSecretRef: { type: 'object', properties: { name: { type: 'string' } } } } },
      },
    },
  },
};

describe('field paths', () => {
  it('prints properties with dots and list items with their index', () => {
    assert.equal(fieldPath([{ field: 'spec' }, { field: 'extraEnv' }, { index: 0 }, { field: 'name' }]), 'spec.extraEnv[0].name');
  });

  it('prints map keys in brackets in field.Path form and with a dot in the OpenAPI form', () => {
    const segments = [{ field: 'spec' }, { field: 'annotations' }, { key: 'example.com/a' }];
    assert.equal(fieldPath(segments), 'spec.annotations[example.com/a]');
    assert.equal(openApiPath(segments), 'spec.annotations.example.com/a');
  });

  it('prints the root as <nil>, like a nil field.Path', () => {
    assert.equal(fieldPath([]), '<nil>');
  });

  it('reads an ajv instancePath through the schema, unescaping ~1 and ~0', () => {
    assert.deepEqual(pointerSegments('/spec/extraEnv/3/name', schema), [
      { field: 'spec' },
      { field: 'extraEnv' },
      { index: 3 },
      { field: 'name' },
    ]);
    assert.deepEqual(pointerSegments('/spec/annotations/a~1b~0c', schema), [{ field: 'spec' }, { field: 'annotations' }, { key: 'a/b~c' }]);
  });

  it('resolves a rule fieldPath to properties and map keys, and refuses undeclared fields', () => {
    const spec = schema.properties!.spec!;
    assert.deepEqual(parseRuleFieldPath('.database.connectionSecretRef.name', spec), [
      { field: 'database' },
      { field: 'connectionSecretRef' },
      { field: 'name' },
    ]);
    assert.deepEqual(parseRuleFieldPath(".annotations['a.b/c']", spec), [{ field: 'annotations' }, { key: 'a.b/c' }]);
    assert.equal(parseRuleFieldPath('.database.nope', spec), undefined);
    assert.equal(parseRuleFieldPath('database', spec), undefined);
  });
});

describe('values in messages', () => {
  it('quotes strings like Go %q', () => {
    assert.equal(goQuote('a"b\\c\n\t\x01é'), '"a\\"b\\\\c\\n\\t\\x01é"');
  });

  it('prints integers and floats like Go %v of int64 and float64', () => {
    assert.equal(goNumber(3), '3');
    assert.equal(goNumber(-1.5), '-1.5');
    assert.equal(goNumber(1e21), '1e+21');
    assert.equal(goNumber(0.00001), '1e-05');
  });

  it('prints objects as encoding/json does: sorted keys, HTML characters escaped', () => {
    assert.equal(goJson({ b: 1, a: ['<x>', { d: true, c: null }] }), '{"a":["\\u003cx\\u003e",{"c":null,"d":true}],"b":1}');
  });

  it('prints null as null and a string value quoted', () => {
    assert.equal(goValue(null), 'null');
    assert.equal(goValue('x'), '"x"');
    assert.equal(goValue(['openai']), '["openai"]');
  });
});
