// Every value of charts/coder-k8s/values.yaml is in the values table of docs/how-to/install-helm.md, and every
// value the schema allows is in values.yaml, so a new value cannot ship undocumented.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

interface Schema {
  properties?: Record<string, Schema>;
}

/** The dotted paths of the leaves: a value that is not a map, or an empty map. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) => leafPaths(inner, prefix ? `${prefix}.${key}` : key));
}

function schemaPaths(schema: Schema, prefix = ''): string[] {
  if (!schema.properties) return [prefix];
  return Object.entries(schema.properties).flatMap(([key, inner]) => schemaPaths(inner, prefix ? `${prefix}.${key}` : key));
}

const values = parse(readFileSync('charts/coder-k8s/values.yaml', 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(readFileSync('charts/coder-k8s/values.schema.json', 'utf8')) as Schema;
const doc = readFileSync('docs/how-to/install-helm.md', 'utf8');
const table = doc.slice(doc.indexOf('## Values'));

describe('helm chart values', () => {
  it('documents each value (or the map holding it) in the values table', () => {
    const undocumented = leafPaths(values).filter((path) => {
      const parts = path.split('.');
      return !parts.some((_, i) => table.includes(`\`${parts.slice(0, i + 1).join('.')}\``));
    });
    assert.deepEqual(undocumented, []);
  });

  it('gives every value the schema allows a default in values.yaml', () => {
    const defaults = new Set(leafPaths(values));
    const missing = schemaPaths(schema).filter((path) => ![...defaults].some((d) => d === path || d.startsWith(`${path}.`)));
    assert.deepEqual(missing, []);
  });
});
