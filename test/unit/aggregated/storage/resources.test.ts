// The storages serve what discovery and the OpenAPI documents say (both generated from schemas/aggregated/).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregatedResources } from '../../../../generated/aggregated/resources.ts';
import type { CoderBackend } from '../../../../src/aggregated/backend.ts';
import type { Storage } from '../../../../src/aggregated/storage/storage.ts';
import { CoderTemplateStorage } from '../../../../src/aggregated/storage/codertemplate/template-storage.ts';
import { CoderTemplateVersionStorage } from '../../../../src/aggregated/storage/codertemplateversion/template-version-storage.ts';
import { CoderWorkspaceStorage } from '../../../../src/aggregated/storage/coderworkspace/workspace-storage.ts';

const backend: CoderBackend = {
  forNamespace() {
    throw new Error('not called');
  },
  namespaces: () => [],
};

describe('storages and the generated resources', () => {
  it('serve the names, write verbs and subresources (with their verbs) that discovery lists', () => {
    const templates = new CoderTemplateStorage(backend);
    const storages: Storage[] = [new CoderWorkspaceStorage(backend), templates, new CoderTemplateVersionStorage(backend, templates)];
    assert.deepEqual(
      storages.map((s) => s.names),
      aggregatedResources.map((r) => r.names),
    );
    for (const [i, storage] of storages.entries()) {
      const resource = aggregatedResources[i]!;
      const subresources = Object.fromEntries(Object.entries(storage.subresources ?? {}).map(([name, { verb }]) => [name, verb]));
      assert.deepEqual(subresources, Object.fromEntries(Object.entries(resource.subresources).map(([name, { verb }]) => [name, verb])));
      for (const verb of ['create', 'update', 'delete'] as const)
        assert.equal(typeof storage[verb] === 'function', resource.verbs.includes(verb), `${resource.names.plural} ${verb}`);
      assert.equal(typeof storage.watch === 'function', resource.verbs.includes('watch'), `${resource.names.plural} watch`);
    }
  });
});
