// `npm run dev`: a local real control plane (with kwok), the CRDs and RBAC installed as the seed says,
// the operator running under its generated role, and the sample control plane applied. Ctrl-C stops all.
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.ts';
import { kubectlOk } from './kubectl.ts';
import { installOperatorRbac, startOperator } from './operator.ts';

const { values } = parseArgs({ options: { sample: { type: 'string', default: 'config/samples/coder_v1alpha1_codercontrolplane.yaml' } } });

const cp = await startControlPlane({ kwok: true });
const stopAll: (() => Promise<void>)[] = [() => cp.stop()];
const shutdown = async (code: number) => {
  for (const stop of stopAll.reverse()) await stop().catch(() => undefined);
  process.exit(code);
};
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.once('SIGINT', () => void shutdown(0));
process.once('SIGTERM', () => void shutdown(0));

try {
  const kubeconfig = await installOperatorRbac(cp);
  const operator = await startOperator(cp, kubeconfig, { args: ['--log-level=info'] });
  stopAll.push(() => operator.process.stop());
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
  await new Promise(() => undefined);
} catch (err) {
  console.error(`npm run dev: ${(err as Error).message}`);
  await shutdown(1);
}
