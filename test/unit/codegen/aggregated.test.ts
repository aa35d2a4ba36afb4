// The aggregated API stage: schemas/aggregated/ → the served OpenAPI definitions, discovery names and verbs,
// table columns, TypeScript types and reference pages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { objectMetaName, openApiDefinitions, openApiFile, resourcesFile } from '../../../codegen/aggregated-api.ts';
import { aggregatedApiReference } from '../../../codegen/aggregated-docs.ts';
import { loadAggregatedApi, undescribed } from '../../../codegen/aggregated-load.ts';
import { aggregatedTypesFile } from '../../../codegen/aggregated-types.ts';

const api = loadAggregatedApi();

describe('aggregated API stage', () => {
  it('loads the kinds in the order group.yaml lists them, with their verbs and subresources', () => {
    assert.deepEqual(
      api.kinds.map((k) => [k.kind, k.names.plural, k.verbs.length, Object.keys(k.subresources)]),
      [
        ['CoderWorkspace', 'coderworkspaces', 7, ['log', 'start', 'stop']],
        ['CoderTemplate', 'codertemplates', 7, ['promote']],
        ['CoderTemplateVersion', 'codertemplateversions', 2, []],
      ],
    );
  });

  it('names every property without a description; a list item needs none of its own', () => {
    const schema = {
      description: 'x',
      properties: {
        a: { type: 'string' },
        b: { type: 'array', description: 'b', items: { type: 'object', properties: { c: { type: 'string' } } } },
      },
    };
    assert.deepEqual(undescribed(schema, 'Kind'), ['Kind.a', 'Kind.b[].c']);
  });

  it('defines each kind and its list under com.coder.aggregation.v1alpha1, metadata by reference, without codegen markers', () => {
    const definitions = openApiDefinitions(api);
    assert.deepEqual(Object.keys(definitions), [
      'com.coder.aggregation.v1alpha1.CoderWorkspace',
      'com.coder.aggregation.v1alpha1.CoderWorkspaceList',
      'com.coder.aggregation.v1alpha1.CoderTemplate',
      'com.coder.aggregation.v1alpha1.CoderTemplateList',
      'com.coder.aggregation.v1alpha1.CoderTemplateVersion',
      'com.coder.aggregation.v1alpha1.CoderTemplateVersionList',
      objectMetaName,
      'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
    ]);
    const workspace = definitions['com.coder.aggregation.v1alpha1.CoderWorkspace']! as Record<string, any>;
    assert.deepEqual(workspace['x-kubernetes-group-version-kind'], [
      { group: 'aggregation.coder.com', version: 'v1alpha1', kind: 'CoderWorkspace' },
    ]);
    assert.equal(workspace.properties.metadata.$ref, objectMetaName);
    assert.deepEqual(Object.keys(workspace.properties), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.equal(
      definitions['com.coder.aggregation.v1alpha1.CoderTemplateList']!.properties &&
        (definitions['com.coder.aggregation.v1alpha1.CoderTemplateList'] as any).properties.items.items.$ref,
      'com.coder.aggregation.v1alpha1.CoderTemplate',
    );
    assert.doesNotMatch(openApiFile(api), /x-coder-/);
  });

  it('frames every table with Name first and Age last, Age served as a string cell of the time since creation', () => {
    const text = resourcesFile(api);
    const workspace = JSON.parse(/export const coderWorkspaceResource: AggregatedResource = (\{[\s\S]*?\n\});/.exec(text)![1]!);
    const columns = workspace.columns as { definition: { name: string; type: string; priority: number }; cell: string }[];
    assert.deepEqual(
      columns.map((c) => [c.definition.name, c.definition.type, c.definition.priority, c.cell]),
      [
        ['Name', 'string', 0, 'value'],
        ['Template', 'string', 0, 'value'],
        ['Running', 'boolean', 0, 'value'],
        ['Build', 'string', 0, 'value'],
        ['Auto Shutdown', 'string', 1, 'value'],
        ['Age', 'string', 0, 'age'],
      ],
    );
    assert.match(
      text,
      /export const aggregatedResources: AggregatedResource\[\] = \[coderWorkspaceResource, coderTemplateResource, coderTemplateVersionResource\];/,
    );
  });

  it('types the served objects: name and namespace always set, spec always there, one union of the kinds', async () => {
    const text = await aggregatedTypesFile(api);
    assert.match(text, /export interface AggregatedObjectMeta \{[\s\S]*?\n {2}name: string;[\s\S]*?\n {2}namespace: string;/);
    assert.match(
      text,
      /export interface CoderTemplate \{\n {2}apiVersion: 'aggregation\.coder\.com\/v1alpha1';\n {2}kind: 'CoderTemplate';\n {2}metadata: AggregatedObjectMeta;\n {2}spec: CoderTemplateSpec;/,
    );
    assert.match(text, /export interface CoderTemplateVersionStatusJob \{/);
    assert.match(text, /export type AggregatedObject = CoderWorkspace \| CoderTemplate \| CoderTemplateVersion;/);
  });

  it('writes a reference page per kind with its fields, columns, verbs and subresources', () => {
    const page = aggregatedApiReference(api);
    assert.match(page, /^# API reference: aggregation\.coder\.com\/v1alpha1/);
    assert.match(page, /## CoderTemplate\n[\s\S]*\| `spec\.files` \| map\[string\]string \|/);
    assert.match(page, /\| `coderworkspaces\/start` \| `create` \| CoderWorkspaceTransition \|/);
    assert.match(page, /### Verbs\n\n`get`, `list`/);
  });
});
