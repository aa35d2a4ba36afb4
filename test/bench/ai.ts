// `npm run bench:ai`: N of each AI kind (CoderAIProvider, CoderMCPServer, CoderAIGatewayKey) on one control
// plane with operator access, against the Coder API double (figures, not a test): time from the first create
// to all Ready, reconciles, Kubernetes writes and Coder calls per object, then 60 s of quiet with the
// operator's writes (control planes included) and the Coder calls beyond the resync reads.
// N (default 20), RESYNC_SECONDS (the operator's --coder-resync-period, default 30) and QUIET_SECONDS
// (default 60) override the defaults.
import { coderAIGatewayKeyClient, coderAIProviderClient, coderMCPServerClient } from '../../generated/clients/index.ts';
import type { CustomResourceClient } from '../../src/runtime/custom-resource-client.ts';
import type { Condition } from '../../src/runtime/conditions.ts';
import type { KubeObject } from '../../src/runtime/informer.ts';
import { aGatewayKey } from '../fixtures/coderaigatewaykey.ts';
import { aProvider } from '../fixtures/coderaiprovider.ts';
import { anMcpServer } from '../fixtures/codermcpserver.ts';
import { sleep, startCoderObjectSuite } from '../harness/coder-object-suite.ts';
import { byResource, operatorWrites } from '../harness/operator-writes.ts';
import { parseSamples } from '../harness/prometheus.ts';
import { inParallel } from './scale/pool.ts';

const n = Number(process.env.N ?? 20);
const resyncSeconds = Number(process.env.RESYNC_SECONDS ?? 30);
const quietSeconds = Number(process.env.QUIET_SECONDS ?? 60);
const namespace = 'bench-ai';

type Readied = KubeObject & { status?: { conditions?: readonly Condition[] } };
const isReady = (o: Readied) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

const { env } = await startCoderObjectSuite(namespace, resyncSeconds, (e) => {
  e.coder.state.buildInfo.version = 'v2.36.0';
  e.coder.state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
});
try {
  const config = env.cp.adminConfig();
  const kinds = [
    {
      controller: 'coderaiprovider',
      client: coderAIProviderClient(config),
      manifest: (i: number) => aProvider(`provider-${i}`).inNamespace(namespace).withSpec({ type: 'openai' }).manifest(),
    },
    {
      controller: 'codermcpserver',
      client: coderMCPServerClient(config),
      manifest: (i: number) => anMcpServer(`mcp-${i}`).inNamespace(namespace).manifest(),
    },
    {
      controller: 'coderaigatewaykey',
      client: coderAIGatewayKeyClient(config),
      manifest: (i: number) =>
        aGatewayKey(`key-${i}`)
          .inNamespace(namespace)
          .withSpec({ destinations: [{ name: `key-${i}` }] })
          .manifest(),
    },
  ] as { controller: string; client: CustomResourceClient<Readied, { items: Readied[] }>; manifest: (i: number) => Readied }[];
  const objects = kinds.length * n;
  const reconciles = async () => {
    const samples = parseSamples(await (await fetch(env.operator.metricsUrl)).text());
    return Object.fromEntries(
      kinds.map((k) => [
        k.controller,
        samples
          .filter((s) => s.name === 'controller_runtime_reconcile_total' && s.labels.controller === k.controller)
          .reduce((a, s) => a + s.value, 0),
      ]),
    );
  };

  const before = await reconciles();
  const coderFrom = env.coder.requests.length;
  const started = new Date();
  const t0 = performance.now();
  await inParallel(objects, 20, async (i) => {
    const kind = kinds[i % kinds.length]!;
    await kind.client.create(kind.manifest(Math.floor(i / kinds.length)));
  });
  for (;;) {
    const ready = (await Promise.all(kinds.map(async (k) => (await k.client.list(namespace)).items.filter(isReady).length))).reduce(
      (a, b) => a + b,
      0,
    );
    if (ready === objects) break;
    await sleep(500);
  }
  const seconds = (performance.now() - t0) / 1000;
  const allReady = new Date();
  const after = await reconciles();
  const coderCalls = env.coder.requests.length - coderFrom;
  const writes = await operatorWrites(env.cp, started, allReady);

  // The status writes of the last reconciles, then the quiet period.
  await sleep(2_000);
  const quietFrom = new Date();
  const coderQuietFrom = env.coder.requests.length;
  await sleep(quietSeconds * 1000);
  const quiet = await operatorWrites(env.cp, quietFrom);
  const quietCalls = env.coder.requests.slice(coderQuietFrom);
  const changes = quietCalls.filter((c) => c.method !== 'GET');
  const passes = quietSeconds / resyncSeconds;

  const row = (label: string, value: string) => console.log(`${label.padEnd(40)} ${value}`);
  row('objects', `${objects}: ${n} each of CoderAIProvider, CoderMCPServer, CoderAIGatewayKey (one control plane, Coder API double)`);
  row('first create → all Ready', `${seconds.toFixed(1)} s`);
  row(
    'reconciles per object',
    kinds.map((k) => `${k.controller} ${((after[k.controller]! - before[k.controller]!) / n).toFixed(2)}`).join(', '),
  );
  row('Kubernetes writes per object', `${(writes.length / objects).toFixed(2)} (${writes.length}: ${byResource(writes)})`);
  row('Coder calls per object', `${(coderCalls / objects).toFixed(2)} (${coderCalls})`);
  row(
    `Kubernetes writes in ${quietSeconds} s of quiet`,
    `${quiet.length}${quiet.length ? ` (${byResource(quiet)})` : ''} (lease renewals not counted)`,
  );
  row(
    `Coder calls in ${quietSeconds} s of quiet`,
    `${quietCalls.length}, ${changes.length} not GET; resync every ${resyncSeconds} s: ${(quietCalls.length / objects / passes).toFixed(2)} reads per object per resync`,
  );
} finally {
  await env.stop();
}
