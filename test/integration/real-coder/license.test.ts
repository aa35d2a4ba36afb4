// A license Coder refuses, on the real Coder server: the operator uploads the JWT from the control plane's
// license Secret, Coder answers 400 "Invalid license" with its reason, and that answer (never the JWT) is
// what LicenseApplied and the operator log say. The same JWT is not sent again until the Secret changes.
// On the way: the operator token Secret the operator creates is named as its own at once.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { coderControlPlaneClient } from '../../../generated/clients/index.ts';
import { CoderClient } from '../../../src/coder/client.ts';
import { fakeLicenseJwt } from '../../harness/coder-api-double.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';
import { sampleValue } from '../../harness/prometheus.ts';
import { eventually } from '../../harness/wait.ts';

const ns = 'licensed';
const ownedJsonpath = 'jsonpath={range .status.conditions[?(@.type=="OperatorTokenSecretOwned")]}{.status} {.reason}: {.message}{end}';
const licenseJsonpath = 'jsonpath={range .status.conditions[?(@.type=="LicenseApplied")]}{.status} {.reason}: {.message}{end}';

describe('a license the real Coder server refuses', () => {
  let env: RealCoderEnvironment;

  before(async () => {
    // --verbose: Coder logs every request it serves, so the test counts the uploads Coder itself received.
    env = await realCoderEnvironment({ coder: { extraArgs: ['--verbose'] } });
  });
  after(async () => {
    await env?.stop();
  });

  const licenseCondition = async () =>
    (await kubectlOk(env.admin, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', licenseJsonpath])).trim();
  /** POST /api/v2/licenses requests as Coder's own request log lists them. */
  const uploadsCoderSaw = async () =>
    (await readFile(env.coder.logFile, 'utf8')).split('\n').filter((line) => /coderd: POST .*path=\/api\/v2\/licenses\s/.test(line)).length;
  const reconcileCount = async () => {
    const text = await (await fetch(env.operator.metricsUrl)).text();
    return ['success', 'requeue_after', 'requeue', 'error']
      .map((result) => sampleValue(text, 'controller_runtime_reconcile_total', { controller: 'codercontrolplane', result }) ?? 0)
      .reduce((a, b) => a + b, 0);
  };

  it("reports Coder's 400 in LicenseApplied and the log, never the JWT, and uploads again only when the Secret changes", async (t) => {
    const jwt = fakeLicenseJwt();
    await kubectlOk(env.admin, ['create', 'namespace', ns]);
    const core = env.cp.adminConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'coder-license' }, stringData: { license: jwt } } });
    const { token } = await controlPlaneWithOperatorAccess(env, ns, 'coder', {
      spec: { licenseSecretRef: { name: 'coder-license', key: 'license' } },
    });
    // The token Secret the operator just created is named as its own as soon as access is ready.
    assert.equal(
      (await kubectlOk(env.admin, ['-n', ns, 'get', 'codercontrolplane', 'coder', '-o', ownedJsonpath])).trim(),
      `True TokenSecretOwned: Secret "${ns}/coder-operator-token" is controlled by this control plane.`,
    );

    const refused = await eventually('LicenseApplied False Rejected', async () => {
      const line = await licenseCondition();
      return line.startsWith('False Rejected') ? line : undefined;
    });
    t.diagnostic(refused);
    // Coder's own answer (enterprise/coderd/licenses.go postLicense): its message and the reason it gives.
    assert.match(refused, /^False Rejected: Coder refused the license in Secret "coder-license" with HTTP 400: Invalid license: \S/);
    for (const part of [jwt, ...jwt.split('.')]) assert.ok(!refused.includes(part), 'no part of the JWT is in the condition');
    const log = await readFile(env.operator.logFile, 'utf8');
    const warning = log.split('\n').find((line) => line.includes('Coder refused the configured license'));
    assert.match(warning ?? '', /"secretName":"coder-license".*"answer":"Invalid license: /);
    for (const part of [jwt, ...jwt.split('.')]) assert.ok(!log.includes(part), 'no part of the JWT is in the operator log');
    const cp = await coderControlPlaneClient(env.cp.adminConfig()).get(ns, 'coder');
    assert.equal(cp.status?.licenseRejectedHash, createHash('sha256').update(jwt).digest('hex'));
    assert.equal(await uploadsCoderSaw(), 1);
    // Coder lists no licenses as null (enterprise/coderd/licenses.go), which the operator's client reads as none.
    assert.equal((await env.coder.api('GET', '/api/v2/licenses')).body, null);
    assert.deepEqual(await new CoderClient({ baseURL: env.coder.url, token }).listLicenses(), []);

    // Reconciles for other reasons (an annotation here; entitlements and Deployment changes in a cluster) send nothing.
    for (const round of [1, 2]) {
      const before = await reconcileCount();
      await kubectlOk(env.admin, ['-n', ns, 'annotate', '--overwrite', 'codercontrolplane/coder', `test.coder.com/round=${round}`]);
      await eventually(`a reconcile after annotation ${round}`, async () => (await reconcileCount()) > before);
    }
    assert.equal(await uploadsCoderSaw(), 1, 'the refused license was not sent again');
    assert.match(await licenseCondition(), /^False Rejected: /);

    // A new value in the Secret is a new input: it is uploaded (and refused again).
    const another = fakeLicenseJwt({ trial: true });
    await core.replaceNamespacedSecret({
      namespace: ns,
      name: 'coder-license',
      body: { metadata: { name: 'coder-license' }, stringData: { license: another } },
    });
    await eventually('the new license value uploaded', async () => (await uploadsCoderSaw()) === 2);
    await eventually(
      'the refusal of the new value recorded',
      async () =>
        (await coderControlPlaneClient(env.cp.adminConfig()).get(ns, 'coder')).status?.licenseRejectedHash ===
        createHash('sha256').update(another).digest('hex'),
    );
  });
});
