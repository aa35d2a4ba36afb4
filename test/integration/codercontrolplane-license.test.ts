// The license and entitlement steps of a control plane against the Coder API double (a real HTTP
// server driven by schemas/coder-api/openapi.yaml): every LicenseApplied outcome, and the tier table.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlaneStatus } from '../../generated/types/codercontrolplane.ts';
import { CoderClient } from '../../src/coder/client.ts';
import type { ControlPlaneContext } from '../../src/controllers/codercontrolplane/context.ts';
import { refreshEntitlements } from '../../src/controllers/codercontrolplane/entitlements.ts';
import { reconcileLicense } from '../../src/controllers/codercontrolplane/license.ts';
import type { EventRecorder } from '../../src/runtime/events.ts';
import { cacheOf } from '../fixtures/cache.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { fakeLicenseJwt, startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';

const token = 'operator-session-token';
const now = new Date('2026-12-01T10:00:00Z');
const jwt = fakeLicenseJwt();

describe('license and entitlements against the Coder API double', () => {
  let coder: CoderApiDouble;
  let client: CoderClient;
  const events: string[] = [];

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => {
    coder.reset();
    events.length = 0;
  });
  after(() => coder?.stop());

  const licenseSecret = (value: string | undefined): V1Secret => ({
    metadata: { name: 'coder-license', namespace: 'coder' },
    data: value === undefined ? {} : { license: Buffer.from(value).toString('base64') },
  });
  // Events are recorded in memory: what the step decides is under test here, not the Event writer.
  const context = (secrets: V1Secret[]) =>
    ({
      caches: { secrets: cacheOf(...secrets) },
      events: {
        record: async (_target: unknown, type: string, reason: string) => {
          events.push(`${type} ${reason}`);
        },
      } as unknown as EventRecorder,
      now: () => now,
    }) as unknown as ControlPlaneContext;
  const withLicense = (status?: CoderControlPlaneStatus) =>
    aControlPlane('coder')
      .inNamespace('coder')
      .withSpec({ licenseSecretRef: { name: 'coder-license', key: 'license' } })
      .withStatus(status)
      .build();
  const condition = (outcome: Awaited<ReturnType<typeof reconcileLicense>>) => {
    const c = outcome.conditions?.LicenseApplied;
    return `${c?.status} ${c?.reason}`;
  };

  it('reports Unknown Pending without spec.licenseSecretRef, and waits for readiness and operator access', async () => {
    const ctx = context([licenseSecret(jwt)]);
    assert.equal(
      condition(await reconcileLicense(ctx, aControlPlane('coder').inNamespace('coder').build(), true, client)),
      'Unknown Pending',
    );
    assert.equal(condition(await reconcileLicense(ctx, withLicense(), false, client)), 'False Pending');
    assert.equal(condition(await reconcileLicense(ctx, withLicense(), true, undefined)), 'False Pending');
    assert.equal(coder.requests.length, 0, 'nothing is sent before the control plane is ready');
  });

  it('reports SecretMissing and retries in 30 s for a missing Secret, key or value', async () => {
    for (const secrets of [[], [licenseSecret(undefined)], [licenseSecret(' \n')]]) {
      const outcome = await reconcileLicense(context(secrets), withLicense(), true, client);
      assert.equal(condition(outcome), 'False SecretMissing');
      assert.equal(outcome.requeueAfterMs, 30_000);
    }
  });

  it('uploads the license, records its hash and an Event, and then only checks that Coder holds one', async () => {
    const outcome = await reconcileLicense(context([licenseSecret(`${jwt}\n`)]), withLicense(), true, client);
    assert.equal(condition(outcome), 'True Applied');
    assert.equal(outcome.status?.licenseLastAppliedHash, createHash('sha256').update(jwt).digest('hex'));
    assert.deepEqual(events, ['Normal LicenseApplied']);
    assert.equal(coder.state.licenses.length, 1);

    const again = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(outcome.status), true, client);
    assert.equal(condition(again), 'True Applied');
    assert.deepEqual(
      coder.requests.slice(1).map((r) => `${r.method} ${r.path}`),
      ['GET /api/v2/licenses'],
    );
  });

  it('takes a license Coder already holds as applied', async () => {
    await client.uploadLicense(jwt);
    const outcome = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(), true, client);
    assert.equal(condition(outcome), 'True Applied');
    assert.match(outcome.conditions?.LicenseApplied?.message ?? '', /already exists/);
  });

  const failures: { name: string; arrange: () => void; result: string; retried: boolean }[] = [
    {
      name: 'an AGPL build without the licenses API',
      arrange: () => {
        coder.state.enterprise = false;
      },
      result: 'False NotSupported',
      retried: false,
    },
    { name: 'a token that may not upload licenses', arrange: () => coder.failNext(1, 403), result: 'False Forbidden', retried: true },
    { name: 'a server error', arrange: () => coder.failNext(1, 500), result: 'False Error', retried: true },
  ];
  for (const row of failures) {
    it(`reports ${row.result} for ${row.name}`, async () => {
      row.arrange();
      const outcome = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(), true, client);
      assert.equal(condition(outcome), row.result);
      assert.equal(outcome.requeueAfterMs, row.retried ? 30_000 : undefined);
    });
  }

  const tiers: { name: string; entitlements: () => void; tier: string; provisioners: string }[] = [
    { name: 'no license', entitlements: () => undefined, tier: 'none', provisioners: 'not_entitled' },
    {
      name: 'a trial',
      entitlements: () => Object.assign(coder.state.entitlements, { has_license: true, trial: true }),
      tier: 'trial',
      provisioners: 'not_entitled',
    },
    {
      name: 'an Enterprise license with external provisioners',
      entitlements: () => {
        coder.state.entitlements.has_license = true;
        coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
      },
      tier: 'enterprise',
      provisioners: 'entitled',
    },
    {
      name: 'a Premium license (custom roles) in its grace period',
      entitlements: () => {
        coder.state.entitlements.has_license = true;
        coder.state.entitlements.features.custom_roles = { entitlement: 'grace_period', enabled: true };
        coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'grace_period', enabled: true };
      },
      tier: 'premium',
      provisioners: 'grace_period',
    },
  ];
  for (const row of tiers) {
    it(`reads ${row.name} as tier ${row.tier}, external provisioners ${row.provisioners}, and looks again in 2 minutes`, async () => {
      row.entitlements();
      const outcome = await refreshEntitlements({}, client, true, now);
      assert.deepEqual(outcome.status, {
        licenseTier: row.tier,
        externalProvisionerDaemonsEntitlement: row.provisioners,
        entitlementsLastChecked: '2026-12-01T10:00:00Z',
      });
      assert.equal(outcome.requeueAfterMs, 120_000);
    });
  }

  it('sends nothing once the reconcile is aborted (shutdown), and keeps what it knew', async () => {
    const aborted = AbortSignal.abort(new Error('the operator is shutting down'));
    const license = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(), true, client, aborted);
    assert.equal(condition(license), 'False Error');
    const entitlements = await refreshEntitlements({ licenseTier: 'trial' }, client, true, now, aborted);
    assert.equal(entitlements.status.licenseTier, 'trial');
    assert.equal(coder.requests.length, 0);
  });

  it('keeps what it knew, without writing a new check time, when Coder does not answer or is not ready', async () => {
    const known = {
      licenseTier: 'enterprise' as const,
      externalProvisionerDaemonsEntitlement: 'entitled' as const,
      entitlementsLastChecked: '2026-11-30T10:00:00Z',
    };
    coder.failNext(1, 503);
    assert.deepEqual(await refreshEntitlements(known, client, true, now), { status: known, requeueAfterMs: 30_000 });
    assert.deepEqual(await refreshEntitlements(known, client, false, now), { status: known });
    assert.deepEqual(await refreshEntitlements({}, undefined, true, now), {
      status: { licenseTier: 'unknown', externalProvisionerDaemonsEntitlement: 'unknown', entitlementsLastChecked: undefined },
    });
  });
});
