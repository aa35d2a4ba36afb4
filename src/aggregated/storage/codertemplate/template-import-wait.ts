// Waiting for Coder to import a template version: poll its job at the initial
// interval, then, past BACKOFF_AFTER, at twice the last interval up to the maximum; the settings are read
// from the environment on every wait.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoderClient } from '../../../coder/client.ts';
import { CoderApiError } from '../../../coder/errors.ts';
import { parseDuration } from '../../../runtime/duration.ts';
import { badRequest, internalError } from '../../status.ts';

export interface ImportWaitConfig {
  timeoutMs: number;
  backoffAfterMs: number;
  initialIntervalMs: number;
  maxIntervalMs: number;
}

const maxWaitMs = 30 * 60_000;

function envDuration(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  const text = env[name]?.trim();
  if (!text) return fallbackMs;
  const ms = parseDuration(text);
  if (ms === undefined) throw internalError(`parse ${name}="${text}": not a duration such as 2s or 25m`);
  return ms;
}

/** The CODER_K8S_TEMPLATE_BUILD_* settings; a value out of range fails the request naming the variable. */
export function importWaitConfig(env: NodeJS.ProcessEnv = process.env): ImportWaitConfig {
  const config = {
    timeoutMs: envDuration(env, 'CODER_K8S_TEMPLATE_BUILD_WAIT_TIMEOUT', 25 * 60_000),
    backoffAfterMs: envDuration(env, 'CODER_K8S_TEMPLATE_BUILD_BACKOFF_AFTER', 2 * 60_000),
    initialIntervalMs: envDuration(env, 'CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL', 2_000),
    maxIntervalMs: envDuration(env, 'CODER_K8S_TEMPLATE_BUILD_MAX_POLL_INTERVAL', 10_000),
  };
  const fail = (what: string) => internalError(`assertion failed: ${what}`);
  if (config.timeoutMs <= 0 || config.timeoutMs > maxWaitMs)
    throw fail('CODER_K8S_TEMPLATE_BUILD_WAIT_TIMEOUT must be greater than 0 and at most 30m');
  if (config.backoffAfterMs > config.timeoutMs)
    throw fail('CODER_K8S_TEMPLATE_BUILD_BACKOFF_AFTER must not exceed CODER_K8S_TEMPLATE_BUILD_WAIT_TIMEOUT');
  if (config.initialIntervalMs <= 0) throw fail('CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL must be greater than 0');
  if (config.maxIntervalMs < config.initialIntervalMs)
    throw fail('CODER_K8S_TEMPLATE_BUILD_MAX_POLL_INTERVAL must be at least CODER_K8S_TEMPLATE_BUILD_INITIAL_POLL_INTERVAL');
  return config;
}

const pending = new Set(['pending', 'running', 'canceling', 'unknown', '']);

/**
 * Why a job that stayed pending never started: Coder queues it until a provisioner daemon of its type and
 * tags takes it, and spec.files is imported with the terraform provisioner (a Coder whose daemons run only
 * another type, echo say, never takes it).
 */
const notTaken =
  "; no provisioner daemon took the import job: spec.files is imported with the terraform provisioner, so a terraform provisioner daemon must serve the template's organization (Coder's built-in provisioners or a CoderProvisioner)";

/** How long the cancel may take: with the wait's budget it stays within the write cap (template-source.ts importBudgetMs). */
const cancelWaitMs = 3_000;

/**
 * Cancels an import the wait gave up on, so that no provisioner imports it later. Coder takes the cancel of
 * a job that neither completed nor was canceled: a queued one ends canceled at once, a running one is told
 * to stop (coder/coder v2.26.1 coderd/templateversions.go patchCancelTemplateVersion). What the message of
 * the refused request then says about it.
 */
async function cancelImport(client: CoderClient, versionId: string): Promise<string> {
  try {
    await client.request('PATCH', '/api/v2/templateversions/{templateVersion}/cancel', {
      params: { templateVersion: versionId },
      signal: AbortSignal.timeout(cancelWaitMs),
    });
    return '; the import was canceled in Coder';
  } catch (err) {
    const why = err instanceof CoderApiError ? `${err.status}${err.coderMessage ? ` ${err.coderMessage}` : ''}` : (err as Error).name;
    return `; canceling the import in Coder failed (${why})`;
  }
}

/**
 * Resolves once the version's import succeeded; a failed or canceled import is a 400 with Coder's error,
 * running out of `budgetMs` (or the configured timeout, whichever is shorter) a 400 naming the last status,
 * after the import is canceled in Coder.
 */
export async function waitForImport(client: CoderClient, versionId: string, budgetMs: number, config = importWaitConfig()): Promise<void> {
  const timeoutMs = Math.min(config.timeoutMs, budgetMs);
  const started = Date.now();
  let interval = config.initialIntervalMs;
  for (;;) {
    const version = await client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: versionId } });
    const { status = '', error } = version.job;
    if (status === 'succeeded') return;
    if (status === 'failed' || status === 'canceled')
      throw badRequest(
        `template version "${versionId}" build ended with status "${status}": ${error || 'template version build did not succeed'}`,
      );
    if (!pending.has(status)) throw internalError(`template version "${versionId}" has an unknown job status "${status}"`);
    const elapsed = Date.now() - started;
    if (elapsed + interval > timeoutMs) {
      const canceled = await cancelImport(client, versionId);
      throw badRequest(
        `template version "${versionId}" did not succeed within ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000}s` : `${timeoutMs}ms`} (last status: "${status}"${error ? `, last error: ${error}` : ''}): template version build wait timeout exceeded${status === 'pending' && !version.job.started_at ? notTaken : ''}${canceled}`,
      );
    }
    await sleep(interval);
    if (config.backoffAfterMs > 0 && Date.now() - started >= config.backoffAfterMs) interval = Math.min(interval * 2, config.maxIntervalMs);
  }
}
