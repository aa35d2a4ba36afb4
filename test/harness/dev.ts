// `npm run dev`: a local real control plane (with kwok), the CRDs and RBAC installed as docs/how-to/deploy-controller.md says,
// the operator running under its generated role, and the sample control plane applied. With
// `--real-coder`, also PostgreSQL and a real Coder server (built by harness:build) on loopback: the sample
// control plane gets Coder's database (spec.database), the operator bootstraps its access there, and its
// Coder calls go to that server. Ctrl-C (or SIGINT/SIGTERM to npm) stops everything and removes the
// temporary directories.
import { CoreV1Api } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.ts';
import { kubectlOk } from './kubectl.ts';
import { installOperatorRbac, startOperator } from './operator.ts';
import { startPostgres } from './postgres.ts';
import { prepareOrExit } from './prepare.ts';
import { startRealCoder, type RealCoder } from './real-coder.ts';
import { setSignalExitCode, untilStopped } from './shutdown.ts';

const { values } = parseArgs({
  options: {
    sample: { type: 'string', default: 'config/samples/coder_v1alpha1_codercontrolplane.yaml' },
    'real-coder': { type: 'boolean', default: false },
  },
});

prepareOrExit(values['real-coder'] ? 'npm run dev -- --real-coder' : 'npm run dev', values['real-coder'] ? 'dev-real-coder' : 'dev');

setSignalExitCode(0);
await untilStopped(async () => {
  const [cp, coder] = await Promise.all([
    startControlPlane({ kwok: true }),
    values['real-coder'] ? startPostgres().then((postgres) => startRealCoder(postgres)) : undefined,
  ]);
  const kubeconfig = await installOperatorRbac(cp);
  const operator = await startOperator(cp, kubeconfig, {
    args: ['--log-level=info', ...(coder ? [`--test-only-coder-url=${coder.url}`] : [])],
  });
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', 'coder']);
  console.log(await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', values.sample!]));
  if (coder) await connectSampleToCoder(cp.adminKubeconfigPath, cp.adminConfig().makeApiClient(CoreV1Api), coder);
  console.log(`operator running (--app=controller) as system:serviceaccount:coder-system:coder-k8s
  operator log:      ${operator.logFile}
  metrics:           ${operator.metricsUrl}
  readiness:         ${operator.probesUrl}/readyz
  admin kubeconfig:  ${cp.adminKubeconfigPath}
${coder ? realCoderLines(coder) : ''}
  export KUBECONFIG=${cp.adminKubeconfigPath}
  kubectl get codercontrolplanes -A

Ctrl-C stops the operator and the control plane.`);
}, 'npm run dev');
setInterval(() => undefined, 1 << 30);

/** Gives every control plane in namespace coder the real Coder's database, through the Secret coder-db-app. */
async function connectSampleToCoder(admin: string, core: CoreV1Api, coder: RealCoder): Promise<void> {
  const secret = { metadata: { name: 'coder-db-app', namespace: 'coder' }, stringData: { uri: coder.databaseURL } };
  // A --sample may bring a Secret of that name (the database sample does, with a placeholder URL): replace it.
  await core.deleteNamespacedSecret({ namespace: 'coder', name: 'coder-db-app' }).catch(() => undefined);
  await core.createNamespacedSecret({ namespace: 'coder', body: secret });
  const names = (await kubectlOk(admin, ['-n', 'coder', 'get', 'codercontrolplanes', '-o', 'name'])).split('\n').filter(Boolean);
  const database = JSON.stringify({ spec: { database: { connectionSecretRef: { name: 'coder-db-app', key: 'uri' } } } });
  for (const name of names) await kubectlOk(admin, ['-n', 'coder', 'patch', name, '--type=merge', '-p', database]);
}

function realCoderLines(coder: RealCoder): string {
  return `  real Coder:        ${coder.url} (${coder.version}; log ${coder.logFile})
  Coder owner:       ${coder.owner.email} / ${coder.owner.password}
  Coder's database:  Secret coder/coder-db-app (spec.database of the sample)

  kubectl -n coder wait --for=jsonpath='{.status.operatorAccessReady}'=true codercontrolplane --all --timeout=120s
`;
}
