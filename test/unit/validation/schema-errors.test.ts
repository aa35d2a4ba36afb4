// Schema errors in the API server's words: types (and formats), required fields, enums, bounds, list keys,
// unknown fields, metadata, and the error that stands for rules not run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindValidators } from '../../../generated/validators/index.ts';
import { validateObject } from '../../../src/validation/validator-lookup.ts';
import { gatewayKeyManifest } from '../../fixtures/coderaigatewaykey.ts';
import { providerManifest } from '../../fixtures/coderaiprovider.ts';
import { controlPlaneManifest } from '../../fixtures/codercontrolplane.ts';
import { provisionerManifest } from '../../fixtures/coderprovisioner.ts';
import { templateTestManifest } from '../../fixtures/codertemplatetest.ts';
import type { Manifest } from '../../fixtures/object-builder.ts';

const notChecked =
  '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; ' +
  'correct the existing errors to complete validation';
const lines = (obj: Manifest) => (validateObject(kindValidators, obj) ?? []).map((e) => `${e.path}: ${e.message}`);

describe('schema errors', () => {
  it('names the wrong type, then stops the CEL rules', () => {
    assert.deepEqual(lines(controlPlaneManifest({ replicas: '3' })), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      notChecked,
    ]);
  });

  it('names the format of a formatted field when the value is neither a string nor a list', () => {
    assert.deepEqual(lines(controlPlaneManifest({ replicas: true })), [
      'spec.replicas: Invalid value: "": spec.replicas in body must be of type int32: ""',
      notChecked,
    ]);
    assert.deepEqual(lines(controlPlaneManifest({ replicas: 1.5 })), [
      'spec.replicas: Invalid value: "float64": spec.replicas in body must be of type int32: "float64"',
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
      notChecked,
    ]);
  });

  it('reports an integer beyond int32 without stopping the rules', () => {
    assert.deepEqual(lines(controlPlaneManifest({ replicas: 2 ** 31 })), [
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
    ]);
  });

  it('checks an int-or-string against its integer branch, like kube-openapi', () => {
    assert.deepEqual(lines(controlPlaneManifest({ resources: { limits: { cpu: true } } })), [
      'spec.resources.limits.cpu: Invalid value: "boolean": spec.resources.limits.cpu in body must be of type integer,string: "boolean"',
      'spec.resources.limits.cpu: Invalid value: "boolean": spec.resources.limits.cpu in body must be of type integer: "boolean"',
      '<nil>: Invalid value: "": "spec.resources.limits.cpu" must validate at least one schema (anyOf)',
      notChecked,
    ]);
  });

  it('reports a required field, an enum and string bounds', () => {
    assert.deepEqual(lines(controlPlaneManifest({ database: { connectionSecretRef: { name: 'db' } } })), [
      'spec.database.connectionSecretRef.key: Required value',
      notChecked,
    ]);
    assert.deepEqual(lines(gatewayKeyManifest({ deletionPolicy: 'Keep' })), [
      'spec.deletionPolicy: Unsupported value: "Keep": supported values: "Delete", "Orphan"',
      notChecked,
    ]);
    assert.deepEqual(lines(gatewayKeyManifest({ keyName: 'k'.repeat(57) })), [
      'spec.keyName: Too long: may not be more than 56 bytes',
      notChecked,
    ]);
    assert.deepEqual(lines(gatewayKeyManifest({ controlPlaneRef: { name: '' } })), [
      'spec.controlPlaneRef.name: Invalid value: "": spec.controlPlaneRef.name in body should be at least 1 chars long',
    ]);
  });

  it('reports list bounds and patterns', () => {
    assert.deepEqual(lines(gatewayKeyManifest({ destinations: Array.from({ length: 9 }, (_, i) => ({ name: `d${i}` })) })), [
      'spec.destinations: Too many: 9: must have at most 8 items',
      notChecked,
    ]);
    assert.deepEqual(lines(gatewayKeyManifest({ destinations: [] })), [
      'spec.destinations: Invalid value: 0: spec.destinations in body should have at least 1 items',
    ]);
    assert.deepEqual(lines(templateTestManifest({ template: 'docker' })), [
      'spec.template: Invalid value: "docker": spec.template in body should match \'^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*\\.[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$\'',
      'spec.template: Invalid value: "docker": organization and template names must each have at most 32 characters',
    ]);
  });

  it('reports a repeated key of a map list once, at its second occurrence', () => {
    const headers = [
      { name: 'X-A', value: '1' },
      { name: 'X-A', value: '2' },
      { name: 'X-A', value: '3' },
    ];
    assert.deepEqual(lines(providerManifest({ upstreamHeaders: headers })), [
      'spec.upstreamHeaders[1]: Duplicate value: {"name":"X-A"}',
      'spec.upstreamHeaders: Invalid value: header names must be unique, ignoring case',
    ]);
  });

  it('adds no "rules were not checked" error for a kind without rules', () => {
    assert.deepEqual(lines(provisionerManifest({ replicas: 'x' })), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  it('reports only the unknown fields when there are any, as strict decoding fails first', () => {
    assert.deepEqual(lines({ ...controlPlaneManifest({ zzz: 1, replicas: -1, extraEnv: [{ name: 'A', bogus: 1 }] }), extra: 1 }), [
      'extra: unknown field "extra"',
      'spec.extraEnv[0].bogus: unknown field "spec.extraEnv[0].bogus"',
      'spec.zzz: unknown field "spec.zzz"',
    ]);
    assert.deepEqual(
      validateObject(kindValidators, controlPlaneManifest({ replicas: { a: 1 } }))?.map((e) => e.type),
      ['field not declared in schema'],
    );
  });

  it('checks metadata: name, labels, and values that do not decode', () => {
    assert.match(lines(controlPlaneManifest({}, 'Coder'))[0]!, /^metadata\.name: Invalid value: "Coder": a lowercase RFC 1123 subdomain/);
    assert.deepEqual(lines({ ...controlPlaneManifest(), metadata: { namespace: 'coder' } }), [
      'metadata.name: Required value: name or generateName is required',
      notChecked,
    ]);
    assert.deepEqual(lines({ ...controlPlaneManifest(), metadata: { name: 'c', labels: { a: 5 } } }), [
      'metadata.labels: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string',
    ]);
    assert.match(
      lines({ ...controlPlaneManifest(), metadata: { name: 'c', labels: { 'a/b/c': 'x' } } })[0]!,
      /^metadata\.labels: Invalid value: "a\/b\/c": a valid label key must consist of alphanumeric characters/,
    );
  });

  it('ignores status, which writes of the main resource drop', () => {
    assert.deepEqual(lines({ ...controlPlaneManifest(), status: { phase: 'Bogus' } }), []);
    assert.deepEqual(lines({ ...controlPlaneManifest(), status: { bogus: 1 } }), ['status.bogus: unknown field "status.bogus"']);
  });

  it("reports a rule that fails to evaluate with the schema type and cel-go's words", () => {
    assert.deepEqual(lines(gatewayKeyManifest({ rotation: { rotateAfter: '2562048h' } })), [
      "spec.rotation.rotateAfter: Invalid value: \"string\": type conversion error from 'string' to 'google.protobuf.Duration' " +
        'evaluating rule: rotateAfter must be a duration such as 720h or 90m, at least 1h',
    ]);
  });

  it('reports an object that is not a JSON object', () => {
    assert.equal(validateObject(kindValidators, 'x'), undefined);
  });
});
