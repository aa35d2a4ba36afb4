// Templates and agents on the real Coder server: echo-provisioner archives from coder-echo-template
// (built with coder by test/harness/build.sh), templates made through Coder's API as a template admin
// would make them, and `coder agent` processes from the same binary for workspaces whose agent must connect.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readTar, writeTar } from '../../src/aggregated/storage/codertemplate/template-archive.ts';
import { binaries } from './binaries.ts';
import { freePort } from './ports.ts';
import { ManagedProcess } from './process.ts';
import type { RealCoder } from './real-coder.ts';
import { eventually } from './wait.ts';

const run = promisify(execFile);

export interface EchoTemplateOptions {
  /** The token of the agent a workspace start creates; no agent when absent. */
  agentToken?: string;
  agentName?: string;
  /** A workspace start fails with this message (stop and delete still succeed). */
  failApply?: string;
  /** The import (and every plan) fails with this message. */
  failPlan?: string;
  /** Log lines of every workspace start. */
  logs?: string[];
  /**
   * A workspace start runs until it is canceled: its apply answers only log lines, and Coder's echo
   * provisioner then waits for a cancel (coder/coder v2.26.1 provisioner/echo/serve.go Apply).
   */
  holdStart?: boolean;
}

/** A tar archive for Coder's echo provisioner. */
export async function echoTemplateArchive(options: EchoTemplateOptions = {}): Promise<Buffer> {
  const args: string[] = [];
  if (options.agentToken) args.push(`-agent-token=${options.agentToken}`);
  if (options.agentName) args.push(`-agent-name=${options.agentName}`);
  if (options.failApply) args.push(`-fail-apply=${options.failApply}`);
  if (options.failPlan) args.push(`-fail-plan=${options.failPlan}`);
  const logs = options.holdStart && !options.logs?.length ? ['held until canceled'] : (options.logs ?? []);
  for (const line of logs) args.push(`-log=${line}`);
  const { stdout } = await run(binaries.coderEchoTemplate(), args, { encoding: 'buffer', maxBuffer: 16 << 20 });
  if (!options.holdStart) return stdout;
  // The start's answers are <i>.start.apply.protobuf, the logs then the apply's end: drop the end.
  const entries = readTar(stdout);
  const ends = entries.filter((e) => /^\d+\.start\.apply\.protobuf$/.test(e.path)).sort((a, b) => parseInt(b.path) - parseInt(a.path));
  return writeTar(entries.filter((e) => e !== ends[0]));
}

export interface TemplateVersionJob {
  id: string;
  name: string;
  job: { status: string; error?: string };
}

/** Uploads an archive and creates a template version of it (of `template` when given); waits for its import to end. */
export async function importVersion(
  coder: RealCoder,
  archive: Buffer,
  options: { template?: string; name?: string; wait?: boolean } = {},
): Promise<TemplateVersionJob> {
  const file = await coder.ok('POST', '/api/v2/files', { raw: { bytes: archive, contentType: 'application/x-tar' } });
  const version = await coder.ok('POST', `/api/v2/organizations/${coder.organization.id}/templateversions`, {
    body: {
      storage_method: 'file',
      file_id: file.hash,
      provisioner: 'echo',
      ...(options.template ? { template_id: options.template } : {}),
      ...(options.name ? { name: options.name } : {}),
    },
  });
  if (options.wait === false) return version;
  return eventually(
    `the import of template version ${version.name} to end`,
    async () => {
      const v = await coder.ok('GET', `/api/v2/templateversions/${version.id}`);
      return ['succeeded', 'failed', 'canceled'].includes(v.job.status) ? v : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

export interface RealTemplate {
  id: string;
  name: string;
  activeVersionId: string;
  /** The agent token baked into the template (when it has an agent). */
  agentToken?: string;
}

/** A template made of an echo archive; with `agent: true`, workspace starts create an agent with a fresh token. */
export async function createEchoTemplate(
  coder: RealCoder,
  name: string,
  options: Omit<EchoTemplateOptions, 'agentToken'> & { agent?: boolean; body?: Record<string, unknown> } = {},
): Promise<RealTemplate> {
  const agentToken = options.agent ? randomUUID() : undefined;
  const version = await importVersion(coder, await echoTemplateArchive({ ...options, ...(agentToken ? { agentToken } : {}) }));
  if (version.job.status !== 'succeeded')
    throw new Error(`real Coder: the import of ${name} ended ${version.job.status}: ${version.job.error}`);
  const template = await coder.ok('POST', `/api/v2/organizations/${coder.organization.id}/templates`, {
    body: { name, template_version_id: version.id, ...options.body },
  });
  return { id: template.id, name: template.name, activeVersionId: template.active_version_id, ...(agentToken ? { agentToken } : {}) };
}

/** `coder agent` for the workspace agent holding `token`; stop() it when the test ends. */
export async function startAgent(coder: RealCoder, token: string): Promise<ManagedProcess> {
  const dir = join(coder.dir, `agent-${token.slice(0, 8)}`);
  await mkdir(dir, { recursive: true });
  const [pprof, prometheus, debug] = await Promise.all([freePort(), freePort(), freePort()]);
  return new ManagedProcess({
    name: 'coder agent',
    command: binaries.coder(),
    logFile: join(dir, 'agent.log'),
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      CODER_AGENT_URL: coder.url,
      CODER_AGENT_TOKEN: token,
      CODER_AGENT_AUTH: 'token',
    },
    args: [
      'agent',
      '--no-reap',
      `--log-dir=${dir}`,
      `--script-data-dir=${dir}`,
      `--pprof-address=127.0.0.1:${pprof}`,
      `--prometheus-address=127.0.0.1:${prometheus}`,
      `--debug-address=127.0.0.1:${debug}`,
    ],
  });
}
