// A control plane whose database URL names a hostile server: one that answers with a 256 MiB ErrorResponse,
// over plain TCP and over TLS. The operator, its own process under its generated RBAC, must report it on
// the control plane and stay up and small, at the first attempt and at the retry 30 s later.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient, type CoderControlPlaneClient } from '../../generated/clients/index.ts';
import { peakRssMiB } from '../bench/scale/process-stats.ts';
import { aControlPlane } from '../fixtures/codercontrolplane.ts';
import { hostilePassword, startHostilePostgres, type HostilePostgres } from '../harness/hostile-postgres.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import { operatorEnvironment, type OperatorEnvironment } from '../harness/operator-environment.ts';
import { createPki } from '../harness/pki.ts';
import { answers200 } from '../harness/probe.ts';
import { tempDir } from '../harness/temp-dir.ts';
import { eventually } from '../harness/wait.ts';

/** The operator's peak resident memory must stay far below the 512 Mi limit of the shipped Deployment. */
const peakLimitMiB = 300;

describe('CoderControlPlane against a hostile database server', () => {
  let env: OperatorEnvironment | undefined;
  let client: CoderControlPlaneClient;
  let core: CoreV1Api;
  const servers: HostilePostgres[] = [];
  const ns = 'hostile-database';

  before(async () => {
    env = await operatorEnvironment();
    client = coderControlPlaneClient(env.cp.adminConfig());
    core = env.cp.adminConfig().makeApiClient(CoreV1Api);
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await env?.stop();
  });

  const operatorAccessCondition = async (name: string) =>
    (await client.get(ns, name)).status?.conditions?.find((x) => x.type === 'OperatorAccessReady');

  it('reports the oversized message in OperatorAccessReady, with and without TLS, and stays up with a low peak RSS', async (t) => {
    const pid = env!.operator.process.pid!;
    const peakBefore = await peakRssMiB(pid);
    const pki = await createPki(tempDir('hostile-postgres-pki'));
    const cert = await pki.serverCert('hostile-postgres');
    const tls = { cert: readFileSync(cert.certFile, 'utf8'), key: readFileSync(cert.keyFile, 'utf8') };
    const plain = await startHostilePostgres({ attack: 'huge-error', at: 'startup' });
    const secure = await startHostilePostgres({ attack: 'huge-error', at: 'query', tls });
    servers.push(plain, secure);
    const cases = [
      { name: 'plain', server: plain, url: plain.url('sslmode=disable'), step: 'connecting to PostgreSQL' },
      {
        name: 'tls',
        server: secure,
        // The harness CA, inline: the operator verifies the hostile server's certificate like any other.
        url: secure.url(`sslmode=verify-full&sslinline=true&sslrootcert=${encodeURIComponent(pki.caPem)}`),
        step: 'starting a transaction',
      },
    ];
    await kubectlOk(env!.admin, ['create', 'namespace', ns]);
    for (const c of cases) {
      await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: `${c.name}-db` }, stringData: { uri: c.url } } });
      await client.create(
        aControlPlane(c.name)
          .inNamespace(ns)
          .withSpec({ database: { connectionSecretRef: { name: `${c.name}-db`, key: 'uri' } } })
          .manifest(),
      );
    }

    // The first attempts and the retry 30 s later all meet the server; the operator must survive them all.
    const retried = (c: (typeof cases)[number]) => {
      const [first, ...later] = c.server.stats.connectedAt;
      return first !== undefined && later.some((at) => at - first >= 25_000);
    };
    await eventually(
      'the retry on each server, reported',
      async () => {
        if (!cases.every(retried)) return undefined;
        const conditions = await Promise.all(cases.map(async (c) => operatorAccessCondition(c.name)));
        return conditions.every((x) => x?.status === 'False') || undefined;
      },
      { timeoutMs: 100_000 },
    );
    const peakAfter = await peakRssMiB(pid);
    const sent = cases
      .map((c) => `${c.name} ${Math.round(c.server.stats.attackBytesSent / 1024)} KiB in ${c.server.stats.connections} connections`)
      .join(', ');
    t.diagnostic(
      `operator peak RSS (VmHWM): ${peakBefore.toFixed(0)} MiB before, ${peakAfter.toFixed(0)} MiB after; bytes the server wrote (into its socket buffers, not all read): ${sent}`,
    );
    assert.equal(env!.operator.process.hasExited, false, 'the operator process is still running');
    assert.ok(await answers200(`${env!.operator.probesUrl}/readyz`), 'the operator still answers /readyz');
    assert.ok(peakAfter < peakLimitMiB, `the operator's peak RSS reached ${peakAfter.toFixed(0)} MiB`);
    assert.ok(secure.stats.sslRequests >= 2, 'the TLS case negotiated TLS');

    for (const c of cases) {
      const condition = (await operatorAccessCondition(c.name))!;
      assert.equal(
        `${condition.reason}: ${condition.message}`,
        `Failed: Operator access: the database server sent a message longer than 1 MiB, so the operator disconnected while ${c.step}: ` +
          "check that the database URL names Coder's PostgreSQL (PostgreSQL answers the operator's statements in a few kilobytes); " +
          'the operator retries on its own.',
        c.name,
      );
      for (const leak of [hostilePassword, String(c.server.port), 'xxxxxxxx', 'XX000']) {
        assert.ok(!condition.message!.includes(leak), `${c.name}: the condition quotes ${leak}`);
      }
    }
  });
});
