import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientFile, clientsIndexFile } from '../../../codegen/clients.ts';
import { coderApiTypesFile } from '../../../codegen/coder-api.ts';
import { apiReference } from '../../../codegen/docs.ts';
import type { ResolvedKind } from '../../../codegen/load.ts';
import { kubernetesTypeKey } from '../../../codegen/resolve.ts';

const widget: ResolvedKind = {
  file: 'widgets.yaml',
  group: 'coder.com',
  version: 'v1alpha1',
  kind: 'Widget',
  scope: 'Namespaced',
  names: { plural: 'widgets', singular: 'widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['coder'] },
  printerColumns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
  conditions: { Ready: { description: 'Whether it works.', reasons: { Working: 'True. It works.', Broken: 'False. It | does not.' } } },
  schema: {},
  resolved: {
    type: 'object',
    description: 'A widget.',
    'x-kubernetes-validations': [{ rule: 'true', message: 'whole-object rule' }],
    properties: {
      spec: {
        type: 'object',
        description: 'Desired state.',
        required: ['size'],
        properties: {
          size: { type: 'integer', description: 'How big.', minimum: 1, default: 3 },
          mode: { type: 'string', description: 'How.', enum: ['fast', 'slow'] },
          env: {
            type: 'array',
            description: 'Variables.',
            items: { type: 'object', [kubernetesTypeKey]: 'io.k8s.api.core.v1.EnvVar', properties: { name: { type: 'string' } } },
          },
        },
      },
    },
  },
};

describe('clients stage', () => {
  it('prints a typed constructor and the resource constant of each kind', () => {
    const text = clientFile(widget);
    assert.match(text, /export const widgetResource: ResourceKind = \{\n\s+group: 'coder\.com',/);
    assert.match(text, /namespaced: true,/);
    assert.match(text, /export type WidgetClient = CustomResourceClient<Widget, WidgetList>;/);
    assert.match(text, /export function widgetClient\(kubeConfig: KubeConfig\): WidgetClient \{/);
    assert.match(text, /import type \{ Widget, WidgetList \} from '\.\.\/types\/widget\.ts';/);
  });

  it('indexes every kind', () => {
    assert.match(clientsIndexFile([widget]), /export const allResources = \[widgetResource\] as const;/);
  });
});

describe('docs stage', () => {
  const doc = apiReference([widget]);
  it('lists fields with type, requiredness, description and validation', () => {
    assert.match(doc, /\| `spec\.size` \(required\) \| integer \| How big\. \| default `3`; minimum `1` \|/);
    assert.match(doc, /\| `spec\.mode` \| string \| How\. \| one of `fast`, `slow` \|/);
    assert.match(doc, /\| `spec\.env` \| \[\]EnvVar \(core\/v1\) \| Variables\. \|/);
    assert.doesNotMatch(doc, /spec\.env\[\]\.name/, 'Kubernetes types are not expanded');
    assert.match(doc, /- rule: whole-object rule/);
  });

  it('lists conditions with every reason, escaping table pipes', () => {
    assert.match(doc, /\| `Ready` \| \| Whether it works\. \|/);
    assert.match(doc, /\| \| `Broken` \| False\. It \\\| does not\. \|/);
    assert.match(doc, /\| Phase \| `\.status\.phase` \|/);
  });
});

describe('Coder API types stage', () => {
  it('types every operation of schemas/coder-api/openapi.yaml', async () => {
    const text = await coderApiTypesFile();
    assert.match(text, /export interface paths \{/);
    assert.match(text, /uploadLicense: \{/);
    assert.match(text, /"\/api\/v2\/licenses": \{/);
  });
});
