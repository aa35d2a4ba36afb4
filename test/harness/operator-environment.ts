// What an integration suite of a controller starts, once: a real control plane (controllers and kwok),
// PostgreSQL, a Coder (the Coder API double, or with realCoderEnvironment the real Coder server), and the
// operator as its own process under its generated RBAC with its Coder calls sent to that Coder
// (--test-only-coder-url). stop() ends them all.
import { startCoderApiDouble, type CoderApiDouble } from './coder-api-double.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { installOperatorRbac, startOperator, type RunningOperator } from './operator.ts';
import { startPostgres, type Postgres } from './postgres.ts';
import { startRealCoder, type RealCoder, type RealCoderOptions } from './real-coder.ts';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.ts';

export interface Environment<C> {
  cp: ControlPlane;
  postgres: Postgres;
  coder: C;
  operator: RunningOperator;
  /** With recordCoderCalls: every call the operator made to Coder (method, path, status, time). */
  coderCalls?: RecordingProxy;
  /** The admin kubeconfig, for kubectl as the deploy guide's user runs it. */
  admin: string;
  stop(): Promise<void>;
}

export type OperatorEnvironment = Environment<CoderApiDouble>;
export type RealCoderEnvironment = Environment<RealCoder>;

export interface EnvironmentOptions {
  /** Added to the operator's command line, for example a short --coder-resync-period. */
  operatorArgs?: string[];
  /** The operator's mode (controller by default). */
  app?: string;
  /** Runs once the control plane is up, before the operator starts (registering an APIService, say). */
  beforeOperator?: (cp: ControlPlane) => Promise<void>;
  /** Sends the operator's Coder calls through a recording proxy (env.coderCalls), to count what Coder receives. */
  recordCoderCalls?: boolean;
}

/** The environment with the Coder API double. */
export function operatorEnvironment(options: EnvironmentOptions = {}): Promise<OperatorEnvironment> {
  return environment(() => startCoderApiDouble(), options);
}

/** The environment with the real Coder server on its own database in the harness PostgreSQL. */
export function realCoderEnvironment(options: EnvironmentOptions & { coder?: RealCoderOptions } = {}): Promise<RealCoderEnvironment> {
  return environment((postgres) => startRealCoder(postgres, options.coder), options);
}

async function environment<C extends { url: string; stop(): Promise<void> }>(
  startCoder: (postgres: Postgres) => Promise<C>,
  options: EnvironmentOptions,
): Promise<Environment<C>> {
  const started: { stop(): Promise<void> }[] = [];
  const track = async <T extends { stop(): Promise<void> }>(p: Promise<T>): Promise<T> => {
    const value = await p;
    started.push(value);
    return value;
  };
  const stopStarted = async () => {
    for (const s of started.reverse()) await s.stop();
  };
  const results = await Promise.allSettled([
    track(startControlPlane({ kwok: true })),
    track(startPostgres()).then(async (postgres) => ({ postgres, coder: await track(startCoder(postgres)) })),
  ]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await stopStarted();
    throw failed.reason;
  }
  const cp = (results[0] as PromiseFulfilledResult<ControlPlane>).value;
  const { postgres, coder } = (results[1] as PromiseFulfilledResult<{ postgres: Postgres; coder: C }>).value;
  let operator: RunningOperator;
  let coderCalls: RecordingProxy | undefined;
  try {
    const kubeconfig = await installOperatorRbac(cp);
    await options.beforeOperator?.(cp);
    if (options.recordCoderCalls) coderCalls = await track(startRecordingProxy(coder.url));
    operator = await startOperator(cp, kubeconfig, {
      args: [`--test-only-coder-url=${coderCalls?.url ?? coder.url}`, ...(options.operatorArgs ?? [])],
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
    ...(coderCalls ? { coderCalls } : {}),
    admin: cp.adminKubeconfigPath,
    async stop() {
      await operator.process.stop();
      await stopStarted();
    },
  };
}
