import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { buildCrd, crdKustomizationYaml, crdPath } from '../../../codegen/crd.ts';
import type { KindSource } from '../../../codegen/load.ts';
import { commonTypeKey, kubernetesTypeKey } from '../../../codegen/resolve.ts';

const kind: KindSource = {
  file: 'widgets.yaml',
  group: 'coder.com',
  version: 'v1alpha1',
  kind: 'Widget',
  scope: 'Namespaced',
  names: { plural: 'widgets', singular: 'widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['coder'] },
  printerColumns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
  conditions: {},
  schema: {},
};

describe('buildCrd', () => {
  const resolved = {
    type: 'object',
    description: 'A widget.',
    properties: {
      spec: {
        type: 'object',
        description: 'Desired state.',
        'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'size must be positive' }],
        properties: {
          env: {
            type: 'array',
            description: 'Our words on env.',
            [commonTypeKey]: 'common/env.yaml',
            items: {
              type: 'object',
              description: 'EnvVar of core/v1.',
              [kubernetesTypeKey]: 'io.k8s.api.core.v1.EnvVar',
              properties: { name: { type: 'string', description: 'long upstream text' } },
            },
          },
        },
      },
    },
  };
  const crd = buildCrd(kind, resolved) as any;
  const version = crd.spec.versions[0];

  it('names the CRD plural.group and writes it to config/crd/bases', () => {
    assert.equal(crd.metadata.name, 'widgets.coder.com');
    assert.equal(crdPath(kind), 'config/crd/bases/coder.com_widgets.yaml');
    assert.deepEqual(crd.spec.names, {
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      categories: ['coder'],
    });
  });

  it('serves one storage version with the status subresource and printer columns', () => {
    assert.equal(crd.spec.versions.length, 1);
    assert.deepEqual(
      { served: version.served, storage: version.storage, subresources: version.subresources },
      { served: true, storage: true, subresources: { status: {} } },
    );
    assert.deepEqual(version.additionalPrinterColumns, kind.printerColumns);
  });

  it('adds apiVersion, kind and metadata, keeps CEL rules, and removes codegen markers', () => {
    const schema = version.schema.openAPIV3Schema;
    assert.deepEqual(Object.keys(schema.properties), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(schema.properties.spec['x-kubernetes-validations'], [{ rule: 'self.size > 0', message: 'size must be positive' }]);
    assert.equal(JSON.stringify(schema).includes('x-coder-'), false);
  });

  it('keeps our description of a Kubernetes type but not the upstream ones inside it', () => {
    const env = version.schema.openAPIV3Schema.properties.spec.properties.env;
    assert.equal(env.description, 'Our words on env.');
    assert.equal(env.items.description, 'EnvVar of core/v1.');
    assert.equal(env.items.properties.name.description, undefined);
  });
});

describe('crdKustomizationYaml', () => {
  it('lists the CRD file of each kind file relative to config/crd/, sorted', () => {
    const other: KindSource = { ...kind, names: { ...kind.names, plural: 'gadgets', singular: 'gadget' } };
    assert.deepEqual(parse(crdKustomizationYaml([kind, other])), {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['bases/coder.com_gadgets.yaml', 'bases/coder.com_widgets.yaml'],
    });
  });
});
