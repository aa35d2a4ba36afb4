// `npm run dev`: a local real control plane (with kwok), the CRDs and RBAC installed as the seed says,
// the operator running under its generated role, and the sample control plane applied. Ctrl-C (or
// SIGINT/SIGTERM to npm) stops the operator and the control plane and removes their temporary directories.
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.ts';
import { kubectlOk } from './kubectl.ts';
import { installOperatorRbac, startOperator } from './operator.ts';
import { setSignalExitCode, untilStopped } from './shutdown.ts';

const { values } = parseArgs({ options: { sample: { type: 'string', default: 'config/samples/coder_v1alpha1_codercontrolplane.yaml' } } });

setSignalExitCode(0);
await untilStopped(async () => {
  const cp = await startControlPlane({ kwok: true });
  const kubeconfig = await installOperatorRbac(cp);
  const operator = await startOperator(cp, kubeconfig, { args: ['--log-level=info'] });
  await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', 'coder']);
  console.log(await kubectlOk(cp.adminKubeconfigPath, ['apply', '-f', values.sample!]));
  console.log(`operator running (--app=controller) as system:serviceaccount:coder-system:coder-k8s
  operator log:      ${operator.logFile}
  metrics:           ${operator.metricsUrl}
  readiness:         ${operator.probesUrl}/readyz
  admin kubeconfig:  ${cp.adminKubeconfigPath}

  export KUBECONFIG=${cp.adminKubeconfigPath}
  kubectl get codercontrolplanes -A

Ctrl-C stops the operator and the control plane.`);
}, 'npm run dev');
setInterval(() => undefined, 1 << 30);
