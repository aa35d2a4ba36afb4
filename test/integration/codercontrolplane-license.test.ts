// The license and entitlement steps of a control plane against the Coder API double (a real HTTP
// server driven by schemas/coder-api/openapi.yaml): every LicenseApplied outcome, and the tier table.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlaneStatus } from '../../generated/types/codercontrolplane.ts';
import { CoderClient } from '../../src/coder/client.ts';
import type { ControlPlaneContext } from '../../src/controllers/codercontrolplane/context.ts';
import { refreshEntitlements } from '../../src/controllers/codercontrolplane/entitlements.ts';
import { reconcileLicense } from '../../src/controllers/codercontrolplane/license.ts';
import { nextConditions } from '../../src/controllers/shared/reconcile/status.ts';
import type { EventRecorder } from '../../src/runtime/events.ts';
import { createLogger } from '../../src/runtime/logger.ts';
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
  const logged: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    }),
  });

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => {
    coder.reset();
    events.length = 0;
    logged.length = 0;
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
      logger,
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

  it('uploads the license again when Coder holds none any more (Coder lists none as null)', async () => {
    const hash = createHash('sha256').update(jwt).digest('hex');
    const status = { licenseLastApplied: '2026-11-30T10:00:00Z', licenseLastAppliedHash: hash };
    const outcome = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(status), true, client);
    assert.equal(condition(outcome), 'True Applied');
    assert.deepEqual(
      coder.requests.map((r) => `${r.method} ${r.path}`),
      ['GET /api/v2/licenses', 'POST /api/v2/licenses'],
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

  it("reports Rejected with Coder's answer (never the license) in the condition, an Event and the log, and uploads it again only when the Secret or the spec changes", async () => {
    const refusedJwt = 'not-a-license-but-kept-secret';
    const first = await reconcileLicense(context([licenseSecret(refusedJwt)]), withLicense(), true, client);
    assert.equal(condition(first), 'False Rejected');
    const message = first.conditions?.LicenseApplied?.message ?? '';
    // The double answers as Coder does for a JWT that does not parse (enterprise/coderd/licenses.go postLicense).
    assert.match(message, /Secret "coder-license" with HTTP 400: Invalid license: token contains an invalid number of segments/);
    assert.doesNotMatch(message, /kept-secret/);
    assert.equal(first.requeueAfterMs, undefined, 'a refused license is not retried on a timer');
    assert.equal(first.status?.licenseRejectedHash, createHash('sha256').update(refusedJwt).digest('hex'));
    assert.deepEqual(events, ['Warning Rejected']);
    const warning = logged.map((line) => JSON.parse(line) as { msg: string; answer?: string }).find((l) => /refused/.test(l.msg));
    assert.match(warning?.answer ?? '', /Invalid license: token contains an invalid number of segments/);
    assert.doesNotMatch(logged.join(''), /kept-secret/);

    // The status the control plane then holds: later reconciles (entitlements, Deployment changes) send nothing.
    const refused = withLicense();
    refused.status = { ...first.status, conditions: nextConditions(refused, first.conditions ?? {}, now) as never };
    const again = await reconcileLicense(context([licenseSecret(refusedJwt)]), refused, true, client);
    assert.equal(condition(again), 'False Rejected');
    assert.equal(again.conditions?.LicenseApplied?.message, message);
    assert.equal(again.requeueAfterMs, undefined);
    assert.equal(coder.requests.filter((r) => r.path === '/api/v2/licenses').length, 1, 'the refused license is not sent again');

    const newSpec = { ...refused, metadata: { ...refused.metadata, generation: (refused.metadata.generation ?? 1) + 1 } };
    assert.equal(condition(await reconcileLicense(context([licenseSecret(refusedJwt)]), newSpec, true, client)), 'False Rejected');
    assert.equal(coder.requests.filter((r) => r.path === '/api/v2/licenses').length, 2, 'a spec change uploads it again');

    const fixed = await reconcileLicense(context([licenseSecret(jwt)]), refused, true, client);
    assert.equal(condition(fixed), 'True Applied');
    assert.ok(
      'licenseRejectedHash' in (fixed.status ?? {}) && fixed.status?.licenseRejectedHash === undefined,
      'the memory of the refusal goes',
    );
  });

  it("puts Coder's answer in the Error condition of a failed upload, and retries it in 30 s", async () => {
    coder.failNext(1, 503, { message: 'database is restarting' });
    const outcome = await reconcileLicense(context([licenseSecret(jwt)]), withLicense(), true, client);
    assert.equal(condition(outcome), 'False Error');
    assert.match(outcome.conditions?.LicenseApplied?.message ?? '', /answered 503.*database is restarting; retrying in 30 s/);
    assert.equal(outcome.requeueAfterMs, 30_000);
  });

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
