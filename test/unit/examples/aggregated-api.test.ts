// examples/aggregated-api: `validate` skips the aggregated kinds (their API server is Coder, not a CRD), so
// these manifests are held to the generated OpenAPI definitions the aggregated API server publishes: the
// kind, every required spec field, no field it does not define, and a name whose first segment is the
// organization.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { aggregatedOpenApiDefinitions } from '../../../generated/aggregated/openapi.ts';

interface Schema {
  required?: string[];
  properties?: Record<string, Schema>;
}

const examples = [
  { file: 'examples/aggregated-api/codertemplate.yaml', kind: 'CoderTemplate', segments: 2 },
  { file: 'examples/aggregated-api/coderworkspace.yaml', kind: 'CoderWorkspace', segments: 3 },
];

describe('examples/aggregated-api', () => {
  for (const { file, kind, segments } of examples) {
    it(`${file} is a ${kind} as the aggregated API server defines it`, () => {
      const obj = parse(readFileSync(file, 'utf8')) as {
        apiVersion: string;
        kind: string;
        metadata: { name: string };
        spec: Record<string, unknown>;
      };
      assert.equal(obj.apiVersion, 'aggregation.coder.com/v1alpha1');
      assert.equal(obj.kind, kind);
      const definition = aggregatedOpenApiDefinitions[`com.coder.aggregation.v1alpha1.${kind}`] as Schema | undefined;
      const spec = definition?.properties?.spec;
      assert.ok(spec?.properties, `no OpenAPI definition of ${kind}.spec`);
      for (const field of spec.required ?? []) assert.ok(field in obj.spec, `spec.${field} is required`);
      for (const field of Object.keys(obj.spec)) assert.ok(field in spec.properties, `${kind} has no field spec.${field}`);
      const parts = obj.metadata.name.split('.');
      assert.equal(parts.length, segments, `metadata.name ${obj.metadata.name}`);
      assert.equal(parts[0], obj.spec.organization, 'spec.organization must equal the first segment of metadata.name');
    });
  }
});
