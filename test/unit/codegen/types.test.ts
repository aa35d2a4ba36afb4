import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubernetesTypeKey, commonTypeKey } from '../../../codegen/resolve.ts';
import { commonTypeName } from '../../../codegen/common-type-name.ts';
import { clientNodeTypeName, typeSchema } from '../../../codegen/types.ts';

describe('types stage', () => {
  it('maps Kubernetes OpenAPI names to @kubernetes/client-node models', () => {
    assert.equal(clientNodeTypeName('io.k8s.api.core.v1.EnvVar'), 'V1EnvVar');
    assert.equal(clientNodeTypeName('io.k8s.api.rbac.v1.PolicyRule'), 'V1PolicyRule');
    assert.equal(clientNodeTypeName('io.k8s.api.autoscaling.v2.MetricSpec'), 'V2MetricSpec');
    assert.equal(clientNodeTypeName('io.k8s.apimachinery.pkg.util.intstr.IntOrString'), 'IntOrString');
    assert.equal(commonTypeName('common/secret-key-selector.yaml'), 'SecretKeySelector');
  });

  it('titles nested objects by path and replaces referenced types with their TypeScript names', () => {
    const refs = { kubernetes: new Set<string>(), common: new Set<string>() };
    const schema = typeSchema(
      {
        type: 'object',
        properties: {
          database: {
            type: 'object',
            properties: { secret: { type: 'object', [commonTypeKey]: 'common/secret-key-selector.yaml', properties: {} } },
          },
          env: { type: 'array', items: { type: 'object', [kubernetesTypeKey]: 'io.k8s.api.core.v1.EnvVar' } },
          port: { 'x-kubernetes-int-or-string': true },
        },
      },
      'WidgetSpec',
      refs,
    ) as any;
    assert.equal(schema.title, 'WidgetSpec');
    assert.equal(schema.properties.database.title, 'WidgetSpecDatabase');
    assert.equal(schema.properties.database.properties.secret.tsType, 'SecretKeySelector');
    assert.equal(schema.properties.env.items.tsType, 'V1EnvVar');
    assert.equal(schema.properties.port.tsType, 'number | string');
    assert.deepEqual([...refs.kubernetes], ['V1EnvVar']);
    assert.deepEqual([...refs.common], ['SecretKeySelector']);
  });
});
