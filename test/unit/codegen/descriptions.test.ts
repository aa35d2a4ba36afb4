// What `kubectl explain` shows for every field of every kind: defaults and required-ness stated once,
// where they belong, matching the schema; condition types listed from x-coder-conditions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withConditionTypesListed } from '../../../codegen/condition-types.ts';
import { defaultText, descriptionProblems } from '../../../codegen/description-rules.ts';
import type { JsonSchema } from '../../../codegen/json-schema.ts';
import { loadKinds, type ResolvedKind } from '../../../codegen/load.ts';
import { kubernetesTypeKey } from '../../../codegen/resolve.ts';

/** One field `f` (required or not) in an object, checked alone. */
function problems(field: JsonSchema, required = false): string[] {
  return descriptionProblems('Kind', { type: 'object', properties: { f: field }, ...(required ? { required: ['f'] } : {}) });
}

/**
 * A schema change the lead makes, not a description: spec.auth.type is in `required` and has
 * `default: none`, so kubectl explain shows -required- for a field the API server always fills.
 * Drop `type` from spec.auth's `required` in schemas/codermcpservers.yaml, then remove this entry.
 */
const waitingForSchemaChange: string[] = [];

describe('descriptionProblems', () => {
  it('accepts a default stated once, as the last sentence, with the schema value', () => {
    assert.deepEqual(problems({ type: 'integer', default: 80, description: 'The port; 0 also means 80. Defaults to 80.' }), []);
    assert.deepEqual(problems({ type: 'string', default: 'x', description: 'A name. Defaults to `x`: explained.' }), []);
    assert.deepEqual(problems({ type: 'object', default: { enabled: true }, description: 'A probe. Defaults to {enabled: true}.' }), []);
    assert.deepEqual(problems({ type: 'string', description: 'A name. Defaults to metadata.name. Cannot be changed after creation.' }), []);
  });

  it('reports a stated default that differs from the schema default', () => {
    assert.deepEqual(problems({ type: 'integer', default: 80, description: 'The port. Defaults to 8080.' }), [
      'Kind.f: has default 80 but its description does not say "Defaults to 80."',
    ]);
  });

  it('reports a schema default the description does not state, or states as "(the default)"', () => {
    assert.deepEqual(
      problems({ type: 'string', enum: ['Delete', 'Orphan'], default: 'Delete', description: 'Delete (the default) or Orphan.' }),
      ['Kind.f: has default Delete but its description does not say "Defaults to Delete."'],
    );
  });

  it('reports a default stated twice', () => {
    assert.deepEqual(problems({ type: 'boolean', default: false, description: 'Off by default. Defaults to false.' }), [
      'Kind.f: states a default 2 times ("by default", "Defaults to")',
    ]);
  });

  it('reports a default that is not the last sentence', () => {
    assert.deepEqual(problems({ type: 'boolean', default: true, description: 'Whether. Defaults to true. Set false to stop.' }), [
      'Kind.f: "Defaults to true." is not the last sentence',
    ]);
  });

  it("reports an object that states its field's default instead of the field", () => {
    const selector = { type: 'object', description: 'A Secret. The key defaults to `token`.', properties: { key: { type: 'string' } } };
    assert.deepEqual(problems(selector), ['Kind.f: states the default of its field key ("key defaults to"); state it in Kind.f.key']);
  });

  it('reports "Required" on a field the schema does not require, unless it names the condition', () => {
    assert.deepEqual(problems({ type: 'string', description: 'A name. Required.' }), [
      'Kind.f: says "Required." but the schema does not require it',
    ]);
    assert.deepEqual(problems({ type: 'string', description: 'A URL. Required when spec.bootstrap is not set.' }), []);
  });

  it('reports "Required" written out on a field kubectl explain already marks -required-', () => {
    assert.deepEqual(problems({ type: 'string', description: 'A name. Required.' }, true), [
      'Kind.f: says "Required." though kubectl explain already marks it -required-',
    ]);
  });

  it('reports a required field with a default', () => {
    assert.deepEqual(problems({ type: 'string', default: 'none', description: 'The type. Defaults to none.' }, true), [
      'Kind.f: is required and has a default; a field the API server defaults is optional',
    ]);
  });

  it('checks only the outermost description of an inlined Kubernetes type, as the CRD keeps only that one', () => {
    const envVar = {
      type: 'object',
      [kubernetesTypeKey]: 'io.k8s.api.core.v1.EnvVar',
      description: 'An environment variable.',
      properties: { name: { type: 'string', description: 'Name. Required.' } },
    };
    assert.deepEqual(problems(envVar), []);
  });

  it('writes object and list defaults as they read in a description', () => {
    assert.equal(defaultText({ enabled: false }), '{enabled: false}');
    assert.equal(defaultText(['a', 'b']), '[a, b]');
    assert.equal(defaultText('ClusterIP'), 'ClusterIP');
  });
});

describe('withConditionTypesListed', () => {
  const kind = (conditionsNode: JsonSchema): ResolvedKind => ({
    file: 'widgets.yaml',
    group: 'coder.com',
    version: 'v1alpha1',
    kind: 'Widget',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    printerColumns: [],
    conditions: {
      Ready: { description: 'r', reasons: {} },
      Synced: { description: 's', reasons: {} },
      Connected: { description: 'c', reasons: {} },
    },
    schema: { type: 'object', properties: { status: { type: 'object', properties: { conditions: conditionsNode } } } },
    resolved: {
      type: 'object',
      properties: { status: { type: 'object', properties: { conditions: { type: 'array', description: 'Observations.' } } } },
    },
  });

  it('appends the declared condition types to the shared description', () => {
    const listed = withConditionTypesListed(kind({ $ref: './common/conditions.yaml' }));
    const status = (listed.resolved.properties as Record<string, JsonSchema>).status!;
    assert.equal(
      (status.properties as Record<string, JsonSchema>).conditions!.description,
      'Observations. Types: Ready, Synced and Connected.',
    );
  });

  it('refuses a hand-written list in the schema, which would go stale', () => {
    assert.throws(
      () => withConditionTypesListed(kind({ $ref: './common/conditions.yaml', description: 'One per type: Ready.' })),
      /schemas\/widgets\.yaml: remove the description of status\.conditions/,
    );
  });
});

describe('every kind in schemas/', () => {
  const kinds = loadKinds().map(withConditionTypesListed);

  for (const kind of kinds) {
    it(`${kind.kind}: no description contradicts its schema or repeats a default or required-ness`, () => {
      const found = descriptionProblems(kind.kind, kind.resolved).filter((p) => !waitingForSchemaChange.includes(p));
      assert.deepEqual(found, []);
    });
  }

  it('waives only problems that still exist', () => {
    const all = kinds.flatMap((kind) => descriptionProblems(kind.kind, kind.resolved));
    assert.deepEqual(
      waitingForSchemaChange.filter((p) => !all.includes(p)),
      [],
      'a waived problem is fixed: remove it from the list',
    );
  });

  it('lists every declared condition type in status.conditions', () => {
    for (const kind of kinds) {
      const status = (kind.resolved.properties as Record<string, JsonSchema>).status!;
      const description = String((status.properties as Record<string, JsonSchema>).conditions!.description);
      for (const type of Object.keys(kind.conditions)) assert.match(description, new RegExp(`\\b${type}\\b`), `${kind.kind}: ${type}`);
    }
  });
});
