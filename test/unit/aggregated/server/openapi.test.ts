// The OpenAPI documents serve the definitions generated from schemas/aggregated/, referring within themselves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregatedOpenApiDefinitions } from '../../../../generated/aggregated/openapi.ts';
import { openApiV2, openApiV3Document, openApiV3Index } from '../../../../src/aggregated/server/openapi.ts';

const refs = (doc: unknown): string[] => JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];

describe('OpenAPI documents', () => {
  it('serve every generated definition, each $ref pointing into the same document', () => {
    const v2 = openApiV2() as { definitions: Record<string, unknown> };
    const v3 = openApiV3Document() as { components: { schemas: Record<string, unknown> } };
    assert.deepEqual(Object.keys(v2.definitions), Object.keys(aggregatedOpenApiDefinitions));
    assert.deepEqual(Object.keys(v3.components.schemas), Object.keys(aggregatedOpenApiDefinitions));
    for (const ref of refs(v2)) assert.match(ref, /"#\/definitions\/[^"]+"/);
    for (const ref of refs(v3)) assert.match(ref, /"#\/components\/schemas\/[^"]+"/);
    const named = (ref: string) => ref.replace(/^"\$ref":"#\/(definitions|components\/schemas)\//, '').slice(0, -1);
    for (const ref of [...refs(v2), ...refs(v3)]) assert.ok(named(ref) in aggregatedOpenApiDefinitions, ref);
  });

  it('lists the read-only versions with get and list only, the others with every write', () => {
    const paths = (openApiV2() as { paths: Record<string, Record<string, unknown>> }).paths;
    const item = (plural: string) => Object.keys(paths[`/apis/aggregation.coder.com/v1alpha1/namespaces/{namespace}/${plural}/{name}`]!);
    assert.deepEqual(item('codertemplateversions'), ['parameters', 'get']);
    assert.deepEqual(item('coderworkspaces'), ['parameters', 'get', 'put', 'patch', 'delete']);
    assert.match(JSON.stringify(openApiV3Index()), /"\/openapi\/v3\/apis\/aggregation\.coder\.com\/v1alpha1\?hash=[0-9a-f]{32}"/);
  });
});
