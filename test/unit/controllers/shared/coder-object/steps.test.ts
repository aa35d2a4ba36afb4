import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoderApiError } from '../../../../../src/coder/errors.ts';
import type { CoderObjectContext } from '../../../../../src/controllers/shared/coder-object/context.ts';
import { gatewayEnabled, listServed } from '../../../../../src/controllers/shared/coder-object/coder-checks.ts';
import {
  credentialsChecked,
  entitlementGate,
  invalidSpec,
  versionGate,
  type Connected,
} from '../../../../../src/controllers/shared/coder-object/opening-steps.ts';
import type { CoderAIProvider } from '../../../../../generated/types/coderaiprovider.ts';
import type { CredentialSecretReadyCondition } from '../../../../../generated/types/conditions.ts';
import type { ConditionOf } from '../../../../../src/runtime/conditions.ts';
import { aControlPlane } from '../../../../fixtures/codercontrolplane.ts';
import { aProvider } from '../../../../fixtures/coderaiprovider.ts';

const signal = new AbortController().signal;
const connection = (version: string) =>
  ({
    connected: true,
    controlPlane: aControlPlane('coder').inNamespace('ns').build(),
    client: {},
    buildInfo: { version },
  }) as unknown as Connected;
const provider = () => {
  const p = aProvider('openai').inNamespace('ns').build();
  p.metadata.uid = 'uid-openai';
  return p;
};

/** A context whose facts answer as given, and that keeps the Events it records. */
function context(facts: { entitlements?: () => Promise<unknown>; deploymentConfig?: () => Promise<unknown> } = {}) {
  const events: string[] = [];
  const ctx = {
    resyncMs: 60_000,
    facts,
    events: { record: async (_target: unknown, type: string, reason: string) => void events.push(`${type} ${reason}`) },
    logger: { debug: () => undefined },
  } as unknown as CoderObjectContext<CoderAIProvider>;
  return { ctx, events };
}

describe('the steps every kind kept in Coder takes', () => {
  it('stops a spec it cannot act on with Ready InvalidSpec, warning once, and leaves the rest of the status', async () => {
    const { ctx, events } = context();
    assert.deepEqual(await invalidSpec(ctx, provider(), undefined), {});
    const p = provider();
    const outcome = await invalidSpec(ctx, p, 'spec.baseURL: is required');
    assert.deepEqual(outcome, {
      stop: { reason: 'InvalidSpec', message: 'spec.baseURL: is required', userMustAct: true },
      conditionsOnly: true,
    });
    p.status = {
      conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'spec.baseURL: is required', lastTransitionTime: '' }],
    };
    await invalidSpec(ctx, p, 'spec.baseURL: is required');
    assert.deepEqual(events, ['Warning InvalidSpec'], 'not again while Ready says it');
  });

  it('removes CredentialSecretReady when spec names no Secret, and stops without a requeue on one it may not use', () => {
    assert.deepEqual(credentialsChecked(undefined), { conditions: { CredentialSecretReady: undefined } });
    const missing: ConditionOf<typeof CredentialSecretReadyCondition> = {
      type: 'CredentialSecretReady',
      status: 'False',
      reason: 'SecretNotFound',
      message: 'Secret "k" does not exist.',
    };
    assert.deepEqual(credentialsChecked(missing), {
      conditions: { CredentialSecretReady: missing },
      stop: { reason: 'CredentialSecretNotReady', message: 'Secret "k" does not exist.', userMustAct: true },
    });
  });

  it('stops a Coder release without the API with Supported False CoderVersionUnsupported, asked again at the resync', () => {
    const { ctx } = context();
    assert.deepEqual(versionGate(ctx, connection('v2.36.0'), 'aiProviders'), {});
    const old = versionGate(ctx, connection('v2.26.1'), 'aiProviders');
    assert.equal(old.conditions?.Supported?.reason, 'CoderVersionUnsupported');
    assert.deepEqual([old.stop !== true && old.stop?.reason, old.requeueAfterMs], ['Unsupported', 60_000]);
  });

  it('stops a gateway key without AI Gateway in the license until the resync, and asks again in 30 s when entitlements cannot be read', async () => {
    const entitled = (entitlement: string) => async () => ({ features: { aibridge: { entitlement, enabled: true } } });
    assert.equal(
      (await entitlementGate(context({ entitlements: entitled('entitled') }).ctx, connection('v2.36.0'), signal)).stop,
      undefined,
    );
    const not = await entitlementGate(context({ entitlements: entitled('not_entitled') }).ctx, connection('v2.36.0'), signal);
    assert.deepEqual(
      [not.stop !== true && not.stop, not.requeueAfterMs],
      [{ reason: 'NotEntitled', message: not.conditions?.Entitled?.message, userMustAct: true }, 60_000],
    );
    const failing = async () => {
      throw new Error('500');
    };
    const unknown = await entitlementGate(context({ entitlements: failing }).ctx, connection('v2.36.0'), signal);
    assert.equal(unknown.conditions?.Entitled?.status, 'Unknown');
    assert.deepEqual([unknown.stop !== true && unknown.stop?.userMustAct, unknown.requeueAfterMs], [false, 30_000]);
  });

  it('proves the API is served by its list: Supported True, EndpointNotFound on 404, Synced False on another failure', async () => {
    const served = await listServed(connection('v2.36.0'), '/api/v2/ai/providers', 'AI providers', async () => ['one'], signal);
    assert.deepEqual(
      [served.stop, served.conditions?.Supported?.reason, 'items' in served && served.items],
      [undefined, 'Supported', ['one']],
    );
    const answer = (status: number) => async () => {
      throw new CoderApiError({ method: 'GET', path: '/api/v2/ai/providers', status });
    };
    const missing = await listServed(connection('v2.36.0'), '/api/v2/ai/providers', 'AI providers', answer(404), signal);
    assert.deepEqual([missing.stop?.reason, missing.conditions?.Supported?.reason], ['Unsupported', 'EndpointNotFound']);
    const failed = await listServed(connection('v2.36.0'), '/api/v2/ai/providers', 'AI providers', answer(500), signal);
    assert.deepEqual([failed.stop?.reason, failed.conditions?.Synced?.reason, !!failed.error], ['SyncFailed', 'CoderAPIError', true]);
  });

  it('stops with GatewayDisabledOnControlPlane only when the deployment config says AI Gateway is off', async () => {
    const config = (enabled: boolean) => async () => ({ config: { ai: { bridge: { enabled } } } });
    const on = await gatewayEnabled(context({ deploymentConfig: config(true) }).ctx, provider(), connection('v2.36.0'), 'unused', signal);
    assert.deepEqual(on, {});
    const off = await gatewayEnabled(
      context({ deploymentConfig: config(false) }).ctx,
      provider(),
      connection('v2.36.0'),
      'clients fail',
      signal,
    );
    assert.equal(off.stop !== true && off.stop?.reason, 'GatewayDisabledOnControlPlane');
    assert.match(
      (off.stop !== true && off.stop?.message) || '',
      /: clients fail\. Set CODER_AI_GATEWAY_ENABLED=true on CoderControlPlane "ns\/coder"\.$/,
    );
    const unreadable = async () => {
      throw new Error('403');
    };
    assert.deepEqual(
      await gatewayEnabled(context({ deploymentConfig: unreadable }).ctx, provider(), connection('v2.36.0'), 'x', signal),
      {},
    );
  });
});
