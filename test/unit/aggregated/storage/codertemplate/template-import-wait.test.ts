// Waiting for a template version's import: the CODER_K8S_TEMPLATE_BUILD_* rules,
// and a wait that runs out answering 400 with the last status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoderClient } from '../../../../../src/coder/client.ts';
import { ApiStatusError } from '../../../../../src/aggregated/status.ts';
import { importWaitConfig, waitForImport } from '../../../../../src/aggregated/storage/codertemplate/template-import-wait.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../../../../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../../../../harness/coder-api-double/workspace-world.ts';

const token = 'importwait-operatortokenvalue000000000';
let coder: CoderApiDouble;
before(async () => {
  coder = await startCoderApiDouble({ tokens: [token] });
});
after(() => coder?.stop());

describe('template import wait', () => {
  it('defaults to 25m, 2m, 2s and 10s', () =>
    assert.deepEqual(importWaitConfig({}), {
      timeoutMs: 1_500_000,
      backoffAfterMs: 120_000,
      initialIntervalMs: 2_000,
      maxIntervalMs: 10_000,
    }));

  for (const [env, why] of [
    [{ CODER_K8S_TEMPLATE_BUILD_WAIT_TIMEOUT: '31m' }, /WAIT_TIMEOUT must be greater than 0 and at most 30m/],
    [{ CODER_K8S_TEMPLATE_BUILD_WAIT_TIMEOUT: '1m', CODER_K8S_TEMPLATE_BUILD_BACKOFF_AFTER: '2m' }, /BACKOFF_AFTER must not exceed/],
    [{ CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL: '20s' }, /MAX_POLL_INTERVAL must be at least/],
    [{ CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL: 'soon' }, /parse CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL="soon"/],
  ] as const)
    it(`refuses ${JSON.stringify(env)}`, () =>
      assert.throws(
        () => importWaitConfig(env),
        (err: unknown) => err instanceof ApiStatusError && err.code === 500 && why.test(err.message),
      ));

  it('answers 400 naming the last status when the import does not end within the wait, and what Coder said to the cancel', async () => {
    const world = coder.state.world;
    const { version } = seedTemplateWithVersion(world, seedOrganization(world, 'acme'), { template: 'stuck' });
    version.job = { id: version.job.id, created_at: version.job.created_at, status: 'canceling', canceled_at: new Date().toISOString() };
    const client = new CoderClient({ baseURL: coder.url, token });
    const config = { timeoutMs: 60_000, backoffAfterMs: 0, initialIntervalMs: 10, maxIntervalMs: 10 };
    await assert.rejects(waitForImport(client, version.id, 50, config), (err: unknown) => {
      assert.ok(err instanceof ApiStatusError);
      assert.equal(err.code, 400);
      assert.match(
        err.message,
        /did not succeed within 50ms \(last status: "canceling"\): template version build wait timeout exceeded; canceling the import in Coder failed \(400 Job has already been marked as canceled!\)$/,
      );
      return true;
    });
  });

  it('says that no terraform provisioner took the job when the import never left pending, and cancels it so that none imports it later', async () => {
    const world = coder.state.world;
    const { version } = seedTemplateWithVersion(world, seedOrganization(world, 'acme'), { template: 'queued' });
    version.job = { id: version.job.id, status: 'pending', created_at: version.job.created_at };
    const client = new CoderClient({ baseURL: coder.url, token });
    const config = { timeoutMs: 60_000, backoffAfterMs: 0, initialIntervalMs: 10, maxIntervalMs: 10 };
    await assert.rejects(waitForImport(client, version.id, 50, config), (err: unknown) => {
      assert.ok(err instanceof ApiStatusError);
      assert.equal(err.code, 400);
      assert.match(
        err.message,
        /\(last status: "pending"\): template version build wait timeout exceeded; no provisioner daemon took the import job: spec\.files is imported with the terraform provisioner, so a terraform provisioner daemon must serve the template's organization.*; the import was canceled in Coder$/,
      );
      return true;
    });
    assert.equal(version.job.status, 'canceled');
    assert.ok(version.job.completed_at, 'a queued job Coder cancels is completed at once');
  });
});
