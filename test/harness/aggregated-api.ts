// The aggregated API server registered with a harness control plane as deploy/apiserver-apiservice.yaml
// does, reached on loopback through an ExternalName Service (Endpoints refuse loopback addresses; the
// aggregator resolves an ExternalName to its host name): kubectl → kube-apiserver → aggregator → the
// operator (--app=aggregated-apiserver, the Go original's --coder-* flags) → the Coder API double.
import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify } from 'yaml';
import type { CoderApiDouble } from './coder-api-double.ts';
import type { ControlPlane } from './control-plane.ts';
import { kubectlOk } from './kubectl.ts';
import { installOperatorRbac, operatorNamespace, startOperator, type RunningOperator } from './operator.ts';
import { freePort } from './ports.ts';

export const apiServiceName = 'v1alpha1.aggregation.coder.com';

export interface AggregatedApi {
  operator: RunningOperator;
  /** The operator's HTTPS port on 127.0.0.1. */
  port: number;
}

/** Registers the APIService, starts the operator serving `namespace` from `coder` with `token` (and `env`), and waits until Available. */
export async function startAggregatedApi(
  cp: ControlPlane,
  coder: CoderApiDouble,
  token: string,
  namespace: string,
  options: { env?: Record<string, string> } = {},
): Promise<AggregatedApi> {
  const admin = cp.adminKubeconfigPath;
  const kubeconfig = await installOperatorRbac(cp);
  const port = await freePort();
  const apiService = parseYaml(readFileSync('deploy/apiserver-apiservice.yaml', 'utf8'));
  apiService.spec.service.port = port;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: apiService.spec.service.name, namespace: operatorNamespace },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port, targetPort: port }] },
  };
  await kubectlOk(admin, ['apply', '-f', '-'], `${stringify(service)}---\n${stringify(apiService)}`);
  const operator = await startOperator(cp, kubeconfig, {
    waitReady: false,
    app: 'aggregated-apiserver',
    ...(options.env ? { env: options.env } : {}),
    args: [
      `--coder-url=${coder.url}`,
      `--coder-session-token=${token}`,
      `--coder-namespace=${namespace}`,
      '--coder-request-timeout=10s',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--log-level=debug',
    ],
  });
  try {
    await kubectlOk(admin, ['wait', '--for=condition=Available', `apiservice/${apiServiceName}`, '--timeout=90s']);
  } catch (err) {
    await operator.process.stop();
    throw new Error(`${(err as Error).message}\noperator log:\n${readFileSync(operator.logFile, 'utf8').slice(-4000)}`);
  }
  return { operator, port };
}
