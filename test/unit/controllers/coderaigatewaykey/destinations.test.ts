import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import {
  claimedDestinationProblem,
  destinationConsent,
  destinationsOf,
  holdsKey,
} from '../../../../src/controllers/coderaigatewaykey/destinations.ts';
import { connectedCondition } from '../../../../src/controllers/coderaigatewaykey/connected.ts';
import { parseDuration } from '../../../../src/runtime/duration.ts';
import { secretHash } from '../../../../src/controllers/shared/coder-object/secret-hash.ts';
import { aGatewayKey } from '../../../fixtures/coderaigatewaykey.ts';

const key = aGatewayKey('gw')
  .inNamespace('coder')
  .withSpec({ destinations: [{ name: 'a' }, { name: 'b', key: 'k' }] })
  .build();
const secret = (name: string, meta: Partial<V1Secret['metadata']> = {}, data: Record<string, string> = {}): V1Secret => ({
  metadata: { name, namespace: 'coder', ...meta },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const owned = {
  ownerReferences: [{ apiVersion: 'coder.com/v1alpha1', kind: 'CoderAIGatewayKey', name: 'gw', uid: 'uid-gw', controller: true }],
};
const marked = (entry: string) => ({
  labels: { 'coder.com/credential': 'true' },
  annotations: { 'coder.com/credential-destinations': entry },
});

describe('AI Gateway key destinations', () => {
  it('accepts a missing Secret, one it owns, and one marked for it', () => {
    const secrets = new Map([['b', secret('b', marked('coderaigatewaykey/gw'))]]);
    const ds = destinationsOf(key, (n) => secrets.get(n));
    assert.deepEqual(
      ds.map((d) => [d.name, d.key, d.managed]),
      [
        ['a', 'key', true],
        ['b', 'k', false],
      ],
    );
    assert.equal(destinationConsent(key, ds).reason, 'CredentialAccepted');
    const mine = destinationsOf(key, (n) => (n === 'a' ? secret('a', owned) : secrets.get(n)));
    assert.equal(destinationConsent(key, mine).reason, 'CredentialAccepted');
  });

  const refusals: [Partial<V1Secret['metadata']>, string][] = [
    [{}, 'NotMarkedAsCredential'],
    [marked('coderaigatewaykey/other'), 'DestinationNotListed'],
  ];
  for (const [meta, reason] of refusals) {
    it(`refuses an existing Secret it does not own with ${reason}`, () => {
      const c = destinationConsent(
        key,
        destinationsOf(key, (n) => (n === 'b' ? secret('b', meta) : undefined)),
      );
      assert.equal(`${c.status} ${c.reason}`, `False ${reason}`);
      assert.match(c.message, /^spec\.destinations: Secret "coder\/b" \(key "k"\)/);
    });
  }

  it("refuses a destination another kind's naming scheme claims, naming the field and the kind", () => {
    assert.equal(claimedDestinationProblem(key), undefined);
    const rows: [string, string][] = [
      ['coder-operator-token', 'CoderControlPlane'],
      ['x-provisioner-key', 'CoderProvisioner'],
      ['eu-west-proxy-token', 'CoderWorkspaceProxy'],
    ];
    for (const [name, kind] of rows) {
      const claimed = aGatewayKey('gw')
        .withSpec({ destinations: [{ name: 'a' }, { name }] })
        .build();
      const problem = claimedDestinationProblem(claimed) ?? '';
      assert.ok(problem.startsWith(`spec.destinations[1].name: the Secret name "${name}" is claimed by ${kind}: `), problem);
    }
  });

  it('tells a destination that holds the key from one that lost or changed it, by hash', () => {
    const hash = secretHash('uid-gw', 'the-key');
    const [holding] = destinationsOf(key, () => secret('a', owned, { key: 'the-key' }));
    const [changed] = destinationsOf(key, () => secret('a', owned, { key: 'other' }));
    const [empty] = destinationsOf(key, () => secret('a', owned));
    assert.deepEqual([holdsKey(key, holding!, hash), holdsKey(key, changed!, hash), holdsKey(key, empty!, hash)], [true, false, false]);
  });
});

describe('Connected and durations', () => {
  const now = new Date('2026-12-01T10:00:00Z');
  it('is HeartbeatRecent under 3 minutes, NoRecentHeartbeat after, NeverUsed without one', () => {
    assert.equal(connectedCondition('2026-12-01T09:58:00Z', now).reason, 'HeartbeatRecent');
    assert.equal(connectedCondition('2026-12-01T09:57:00Z', now).reason, 'NoRecentHeartbeat');
    assert.equal(connectedCondition(undefined, now).reason, 'NeverUsed');
  });
  it('reads Go durations', () => {
    assert.equal(parseDuration('2160h'), 2160 * 3_600_000);
    assert.equal(parseDuration('1h30m'), 90 * 60_000);
    assert.equal(parseDuration('0s'), 0);
    assert.equal(parseDuration('0.5h'), 1_800_000);
    assert.equal(parseDuration('10 minutes'), undefined);
    assert.equal(parseDuration(undefined), undefined);
  });
});
