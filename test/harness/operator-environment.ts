// What an integration suite of a controller starts, once: a real control plane (controllers and kwok),
// PostgreSQL, the Coder API double, and the operator as its own process under its generated RBAC with
// its Coder calls sent to the double (--test-only-coder-url). stop() ends them all.
import { startCoderApiDouble, type CoderApiDouble } from './coder-api-double.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { installOperatorRbac, startOperator, type RunningOperator } from './operator.ts';
import { startPostgres, type Postgres } from './postgres.ts';

export interface OperatorEnvironment {
  cp: ControlPlane;
  postgres: Postgres;
  coder: CoderApiDouble;
  operator: RunningOperator;
  /** The admin kubeconfig, for kubectl as the seed's user runs it. */
  admin: string;
  stop(): Promise<void>;
}

/**
 * `operatorArgs` are added to the operator's command line, for example a short --coder-resync-period;
 * `app` is its mode (controller by default); `beforeOperator` runs once the control plane is up, before
 * the operator starts (registering the APIService the operator of --app=all serves, for example).
 */
export async function operatorEnvironment(
  options: { operatorArgs?: string[]; app?: string; beforeOperator?: (cp: ControlPlane) => Promise<void> } = {},
): Promise<OperatorEnvironment> {
  const started = await Promise.allSettled([startControlPlane({ kwok: true }), startPostgres(), startCoderApiDouble()]);
  const stopStarted = () => Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stopStarted();
    throw failed.reason;
  }
  const [cp, postgres, coder] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    ControlPlane,
    Postgres,
    CoderApiDouble,
  ];
  let operator: RunningOperator;
  try {
    const kubeconfig = await installOperatorRbac(cp);
    await options.beforeOperator?.(cp);
    operator = await startOperator(cp, kubeconfig, {
      args: [`--test-only-coder-url=${coder.url}`, ...(options.operatorArgs ?? [])],
      ...(options.app ? { app: options.app } : {}),
    });
  } catch (err) {
    await stopStarted();
    throw err;
  }
  return {
    cp,
    postgres,
    coder,
    operator,
    admin: cp.adminKubeconfigPath,
    async stop() {
      await operator.process.stop();
      await stopStarted();
    },
  };
}
