// `npm run bench:provisioner`: N provisioners of one control plane (operator access ready, against the
// Coder API double) from create to Ready on a control plane with kwok (figures, not a test): time,
// reconciles, API writes and Coder calls per object, and the operator's writes during 60 s of quiet.
import { coderProvisionerClient } from '../../generated/clients/index.ts';
import type { CoderProvisioner } from '../../generated/types/coderprovisioner.ts';
import { controlPlaneWithOperatorAccess, entitlementsRead } from '../harness/control-plane-with-access.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment } from '../harness/operator-environment.ts';
import { byResource, operatorWrites } from '../harness/operator-writes.ts';
import { parseSamples, type Sample } from '../harness/prometheus.ts';

const n = Number(process.env.N ?? 100);
const quietSeconds = Number(process.env.QUIET_SECONDS ?? 60);
const namespace = 'bench';

const env = await operatorEnvironment();
try {
  env.coder.state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
  await kubectlOk(env.admin, ['create', 'namespace', namespace]);
  await controlPlaneWithOperatorAccess(env, namespace);
  const client = coderProvisionerClient(env.cp.adminConfig());
  const sum = async (matches: (s: Sample) => boolean) =>
    parseSamples(await (await fetch(env.operator.metricsUrl)).text())
      .filter(matches)
      .reduce((a, s) => a + s.value, 0);
  const reconciles = () => sum((s) => s.name === 'controller_runtime_reconcile_total' && s.labels.controller === 'coderprovisioner');
  // Let the control plane settle (entitlements read, as it has soon after it serves), so that its own
  // writes, and the provisioners' answers to them, are not counted.
  await entitlementsRead(env, namespace);
  await new Promise((r) => setTimeout(r, 5_000));
  const before = await reconciles();
  const coderCallsBefore = env.coder.requests.length;
  const started = new Date();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, j) =>
        client.create({
          apiVersion: 'coder.com/v1alpha1',
          kind: 'CoderProvisioner',
          metadata: { name: `p-${i + j}`, namespace },
          spec: { controlPlaneRef: { name: 'coder' } },
        } satisfies CoderProvisioner),
      ),
    );
  }
  for (;;) {
    const ready = (await client.list(namespace)).items.filter((o) => o.status?.phase === 'Ready').length;
    if (ready === n) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - t0) / 1000;
  const allReady = new Date();
  const count = (await reconciles()) - before;
  const coderCalls = env.coder.requests.length - coderCallsBefore;
  const writes = await operatorWrites(env.cp, started, allReady);
  await new Promise((r) => setTimeout(r, 2_000));
  const quietFrom = new Date();
  const coderQuietFrom = env.coder.requests.length;
  await new Promise((r) => setTimeout(r, quietSeconds * 1000));
  const quiet = await operatorWrites(env.cp, quietFrom);
  console.log(`provisioners                 ${n} (one control plane with operator access, Coder API double)`);
  console.log(`first create → all Ready     ${seconds.toFixed(1)} s`);
  console.log(`reconciles                   ${count} (${(count / n).toFixed(2)} per object)`);
  console.log(`API writes by the operator   ${writes.length} (${(writes.length / n).toFixed(2)} per object): ${byResource(writes)}`);
  console.log(`Coder API calls              ${coderCalls} (${(coderCalls / n).toFixed(2)} per object)`);
  console.log(
    `writes in ${quietSeconds} s of quiet      ${quiet.length}${quiet.length ? `: ${byResource(quiet)}` : ''} (lease renewals not counted)`,
  );
  console.log(`Coder calls in the quiet     ${env.coder.requests.length - coderQuietFrom}`);
} finally {
  await env.stop();
}
