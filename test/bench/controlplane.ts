// `npm run bench:controlplane`: N control planes (operator access disabled) from create to Ready on a
// control plane with kwok (figures, not a test): time, reconciles and API writes per object, and the
// operator's writes during 60 s of quiet afterwards, and how many of its requests met 409 Conflict.
import { coderControlPlaneClient } from '../../generated/clients/index.ts';
import type { CoderControlPlane } from '../../generated/types/codercontrolplane.ts';
import { startControlPlane } from '../harness/control-plane.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { installOperatorRbac, startOperator } from '../harness/operator.ts';
import { byResource, operatorWrites } from '../harness/operator-writes.ts';
import { parseSamples, type Sample } from '../harness/prometheus.ts';

const n = Number(process.env.N ?? 300);
const concurrency = Number(process.env.CONCURRENCY ?? 4);
const quietSeconds = Number(process.env.QUIET_SECONDS ?? 60);
const namespace = 'bench';

const cp = await startControlPlane({ kwok: true });
try {
  const kubeconfig = await installOperatorRbac(cp);
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', namespace]);
  const op = await startOperator(cp, kubeconfig, { args: [`--max-concurrent-reconciles=${concurrency}`, '--log-level=warn'] });
  const client = coderControlPlaneClient(cp.adminConfig());
  const sum = async (matches: (s: Sample) => boolean) =>
    parseSamples(await (await fetch(op.metricsUrl)).text())
      .filter(matches)
      .reduce((a, s) => a + s.value, 0);
  const reconciles = () => sum((s) => s.name === 'controller_runtime_reconcile_total' && s.labels.controller === 'codercontrolplane');
  // The operator's own client counts every answer it got, including the 409s it retried.
  const conflicts = () => sum((s) => s.name === 'rest_client_requests_total' && s.labels.code === '409');
  const before = await reconciles();
  const conflictsBefore = await conflicts();
  const started = new Date();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, j) =>
        client.create({
          apiVersion: 'coder.com/v1alpha1',
          kind: 'CoderControlPlane',
          metadata: { name: `cp-${i + j}`, namespace },
          spec: { operatorAccess: { disabled: true } },
        } satisfies CoderControlPlane),
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
  const conflictCount = (await conflicts()) - conflictsBefore;
  const objectWrites = await operatorWrites(cp, started, allReady);
  const statusWrites = objectWrites.filter((e) => e.objectRef?.subresource === 'status');
  const statusConflicts = statusWrites.filter((e) => e.responseStatus?.code === 409);
  await new Promise((r) => setTimeout(r, 2_000));
  const quietFrom = new Date();
  await new Promise((r) => setTimeout(r, quietSeconds * 1000));
  const quiet = await operatorWrites(cp, quietFrom);
  console.log(`control planes               ${n} (operator access disabled, max-concurrent-reconciles=${concurrency})`);
  console.log(`first create → all Ready     ${seconds.toFixed(1)} s`);
  console.log(`reconciles                   ${count} (${(count / n).toFixed(2)} per object)`);
  console.log(
    `API writes by the operator   ${objectWrites.length} (${(objectWrites.length / n).toFixed(2)} per object): ${byResource(objectWrites)}`,
  );
  console.log(
    `409 Conflict answers         ${conflictCount} (${(conflictCount / n).toFixed(2)} per object); ` +
      `status writes that met 409: ${statusConflicts.length} of ${statusWrites.length}`,
  );
  console.log(
    `writes in ${quietSeconds} s of quiet      ${quiet.length}${quiet.length ? `: ${byResource(quiet)}` : ''} (lease renewals not counted)`,
  );
  await op.process.stop();
} finally {
  await cp.stop();
}
