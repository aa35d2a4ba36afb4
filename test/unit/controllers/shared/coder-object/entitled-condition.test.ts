import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../../src/coder/api-types.ts';
import {
  entitledCondition,
  entitlementsUnavailableCondition,
} from '../../../../../src/controllers/shared/coder-object/entitled-condition.ts';

const withFeature = (entitlement?: string) =>
  ({ features: entitlement ? { aibridge: { entitlement, enabled: true } } : {} }) as unknown as Schemas['Entitlements'];

describe('Entitled', () => {
  const rows: [string | undefined, string][] = [
    ['entitled', 'True Entitled'],
    ['grace_period', 'True GracePeriod'],
    ['not_entitled', 'False FeatureNotEntitled'],
    [undefined, 'False FeatureNotEntitled'],
  ];
  for (const [entitlement, expected] of rows) {
    it(`is ${expected} for aibridge ${entitlement ?? 'absent'}`, () => {
      const c = entitledCondition(withFeature(entitlement), 'aibridge', 'AI Gateway');
      assert.equal(`${c.status} ${c.reason}`, expected);
      assert.match(c.message, /aibridge/);
    });
  }
  it('is Unknown EntitlementsUnavailable when they cannot be read', () => {
    const c = entitlementsUnavailableCondition(new Error('Coder API GET /api/v2/entitlements answered 500'));
    assert.equal(`${c.status} ${c.reason}`, 'Unknown EntitlementsUnavailable');
  });
});
