// The Coders that bench:aggregated lists N workspaces from, each holding them as the operator will read them:
// - the Coder API double, seeded with N running workspaces;
// - the real Coder server (test/harness/real-coder.ts, on the harness PostgreSQL), where the first owner creates
//   N workspaces of an echo template through Coder's API and each is built by Coder's echo provisioner.
// Each counts the workspace-list calls Coder answered: the double from its request log, the real Coder from
// its own Prometheus counter.
import { createEchoTemplate } from '../../harness/real-coder-templates.ts';
import { startCoderApiDouble } from '../../harness/coder-api-double.ts';
import { seedRunningWorkspaces } from '../../harness/coder-api-double/workspace-world.ts';
import { startPostgres } from '../../harness/postgres.ts';
import { startRealCoder, type RealCoder } from '../../harness/real-coder.ts';
import { sampleValue } from '../../harness/prometheus.ts';
import { eventually } from '../../harness/wait.ts';
import { inParallel } from '../scale/pool.ts';

export interface WorkspaceSource {
  /** What the figures are of: "the Coder API double" or "the real Coder v2.26.1". */
  label: string;
  url: string;
  /** The session token the operator and the direct calls use. */
  token: string;
  /** The CoderWorkspace name (organization.owner.workspace) of workspace i. */
  workspaceName(i: number): string;
  /** How many workspace-list calls (GET /api/v2/workspaces) Coder has answered so far. */
  listCalls(): Promise<number>;
  /** How long making the N workspaces took, for the output. */
  seeded: string;
  stop(): Promise<void>;
}

const workspaceName = (i: number) => `ws${i}`;

export async function doubleWithWorkspaces(n: number): Promise<WorkspaceSource> {
  const token = 'aggregatedbench-operatortokenvalue000';
  const coder = await startCoderApiDouble({ tokens: [token] });
  const started = performance.now();
  seedRunningWorkspaces(coder.state.world, coder.state.users, {
    organization: 'acme',
    template: 'starter',
    owner: 'alice',
    workspaces: Array.from({ length: n }, (_, i) => workspaceName(i)),
  });
  return {
    label: 'the Coder API double',
    url: coder.url,
    token,
    workspaceName: (i) => `acme.alice.${workspaceName(i)}`,
    listCalls: async () => coder.requests.filter((r) => r.operationId === 'listWorkspaces').length,
    seeded: `seeded in memory in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    stop: () => coder.stop(),
  };
}

/** How many workspaces are created at once; the owner's calls would otherwise wait on each build's insert. */
const createConcurrency = 16;

export async function realCoderWithWorkspaces(n: number): Promise<WorkspaceSource> {
  const postgres = await startPostgres();
  let coder: RealCoder | undefined;
  const stop = async () => {
    await coder?.stop();
    await postgres.stop();
  };
  try {
    // Coder limits every user to 512 API calls a minute (--api-rate-limit); a deployment with thousands of
    // workspaces got them from many users, so the one owner who makes them all here is not limited.
    const real = (coder = await startRealCoder(postgres, { prometheus: true, extraArgs: ['--api-rate-limit=-1'] }));
    const template = await createEchoTemplate(real, 'bench');
    const started = performance.now();
    await inParallel(n, createConcurrency, async (i) => {
      await real.ok('POST', '/api/v2/users/me/workspaces', { body: { template_id: template.id, name: workspaceName(i) } });
    });
    const running = async () =>
      (await real.ok('GET', '/api/v2/workspaces', { query: { q: 'status:running', limit: '1' } })).count as number;
    await eventually(`all ${n} workspaces running`, async () => (await running()) === n, {
      timeoutMs: Math.max(120_000, n * 200),
      intervalMs: 1000,
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      label: `the real Coder ${real.version}`,
      url: real.url,
      token: real.owner.token,
      workspaceName: (i) => `${real.organization.name}.${real.owner.username}.${workspaceName(i)}`,
      listCalls: async () =>
        sampleValue(await real.metrics(), 'coderd_api_requests_processed_total', {
          code: '200',
          method: 'GET',
          path: '/api/v2/workspaces',
        }) ?? 0,
      seeded: `created through Coder's API and built by its echo provisioner in ${seconds.toFixed(0)} s`,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
