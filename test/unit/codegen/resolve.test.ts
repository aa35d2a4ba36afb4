import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { commonTypeKey, kubernetesTypeKey, resolveRefs } from '../../../codegen/resolve.ts';
import { tempDir } from '../../harness/temp-dir.ts';

function fixture(files: Record<string, string>): string {
  const dir = tempDir('resolve');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('resolveRefs', () => {
  it('inlines file and pointer refs, marks their origin, and lets sibling keywords override', () => {
    const dir = fixture({
      'common/selector.yaml':
        'type: object\ndescription: shared\nrequired: [name]\nproperties:\n  name: {type: string}\n  key: {type: string}\n',
      'kubernetes/definitions.yaml': [
        'definitions:',
        '  io.k8s.api.core.v1.EnvVar:',
        '    type: object',
        '    properties:',
        '      valueFrom: {$ref: "#/definitions/io.k8s.api.core.v1.EnvVarSource"}',
        '  io.k8s.api.core.v1.EnvVarSource:',
        '    type: object',
        '    properties: {secretKeyRef: {type: object}}',
      ].join('\n'),
    });
    const resolved = resolveRefs(
      {
        type: 'object',
        properties: {
          ref: { $ref: './common/selector.yaml', description: 'local', required: ['name', 'key'] },
          env: { $ref: './kubernetes/definitions.yaml#/definitions/io.k8s.api.core.v1.EnvVar' },
        },
      },
      join(dir, 'kind.yaml'),
    );
    const props = resolved.properties as Record<string, Record<string, unknown>>;
    assert.equal(props.ref!.description, 'local');
    assert.deepEqual(props.ref!.required, ['name', 'key']);
    assert.match(String(props.ref![commonTypeKey]), /common\/selector\.yaml$/);
    assert.equal(props.env![kubernetesTypeKey], 'io.k8s.api.core.v1.EnvVar');
    const valueFrom = (props.env!.properties as Record<string, Record<string, unknown>>).valueFrom!;
    assert.equal(valueFrom[kubernetesTypeKey], 'io.k8s.api.core.v1.EnvVarSource');
    assert.deepEqual(valueFrom.properties, { secretKeyRef: { type: 'object' } });
    assert.equal(JSON.stringify(resolved).includes('$ref'), false);
  });

  it('names the file and pointer of a ref that does not exist', () => {
    const dir = fixture({ 'a.yaml': 'definitions: {}\n' });
    assert.throws(
      () => resolveRefs({ $ref: './a.yaml#/definitions/Missing' }, join(dir, 'kind.yaml')),
      /\$ref pointer #\/definitions\/Missing does not exist/,
    );
  });

  it('rejects a cycle instead of recursing forever', () => {
    const dir = fixture({ 'loop.yaml': 'type: object\nproperties:\n  next: {$ref: "./loop.yaml"}\n' });
    assert.throws(() => resolveRefs({ $ref: './loop.yaml' }, join(dir, 'kind.yaml')), /\$ref cycle/);
  });

  it('gives a property of the referenced schema its own description at one use, and nothing else', () => {
    const dir = fixture({
      'common/selector.yaml': 'type: object\nproperties:\n  name: {type: string, description: n}\n  key: {type: string, description: k}\n',
    });
    const use = (key: Record<string, unknown>) =>
      resolveRefs({ $ref: './common/selector.yaml', properties: { key } }, join(dir, 'kind.yaml')).properties as Record<
        string,
        Record<string, unknown>
      >;
    assert.deepEqual(use({ description: 'k. Defaults to `api-key`.' }), {
      name: { type: 'string', description: 'n' },
      key: { type: 'string', description: 'k. Defaults to `api-key`.' },
    });
    assert.throws(() => use({ type: 'integer' }), /properties\.key may only override description, not type/);
    assert.throws(
      () => resolveRefs({ $ref: './common/selector.yaml', properties: { other: { description: 'x' } } }, join(dir, 'kind.yaml')),
      /properties\.other is not a property of the referenced schema/,
    );
  });
});
