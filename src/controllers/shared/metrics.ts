// The operator's own metrics, beside the controller runtime's: what a platform team alerts on. Every label
// takes few values: a Coder route is its path template, a kind or reason comes from the schemas, and a
// control plane is one series while it exists (docs/how-to/metrics.md).
import { Counter, Gauge, Histogram, type Registry } from '../../runtime/prom-client.ts';
import type { CoderCallRecord } from '../../coder/call-outcome.ts';

/** A control plane as its status says: whether the operator holds access to its Coder. */
export interface OperatorAccessState {
  namespace: string;
  name: string;
  ready: boolean;
}

export interface OperatorMetrics {
  /** Each attempt of a Coder REST call, by method, route template and outcome (CoderCallOutcome). */
  coderApiRequestDuration: Histogram<'method' | 'route' | 'outcome'>;
  /** 1 while a control plane's status.operatorAccessReady is true, else 0; read at each scrape. */
  operatorAccessReady: Gauge<'namespace' | 'name'>;
  /** Template tests that reached a result: result Succeeded or Failed, with the final reason. */
  templateTestResults: Counter<'result' | 'reason'>;
  /** Each time an object's CredentialSecretReady turned False, or changed its reason while False. */
  credentialRefusals: Counter<'kind' | 'reason'>;
  /** Where operatorAccessReady reads the control planes from (the controller's cache). */
  reportOperatorAccess(source: () => Iterable<OperatorAccessState>): void;
  /** Records one attempt of a Coder call (the Coder client's onCall). */
  observeCoderCall(record: CoderCallRecord): void;
}

// From 5 ms (a cached answer on the same node) to 30 s (the client's default time budget for a call).
const coderCallBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Registers the operator's metrics in `registry`. */
export function createOperatorMetrics(registry: Registry): OperatorMetrics {
  const registers = [registry];
  let accessSource: (() => Iterable<OperatorAccessState>) | undefined;
  const coderApiRequestDuration = new Histogram({
    name: 'coder_k8s_coder_api_request_duration_seconds',
    help: 'Duration of each request to a Coder API, by method, route template and outcome (success, client_error, server_error, timeout, network_error, canceled, error)',
    labelNames: ['method', 'route', 'outcome'] as const,
    buckets: coderCallBuckets,
    registers,
  });
  return {
    coderApiRequestDuration,
    operatorAccessReady: new Gauge({
      name: 'coder_k8s_control_plane_operator_access_ready',
      help: "Whether the operator holds access to a CoderControlPlane's Coder (status.operatorAccessReady): 1 yes, 0 no",
      labelNames: ['namespace', 'name'] as const,
      registers,
      collect() {
        // Rebuilt from the cache at each scrape, so a deleted control plane's series goes with it.
        this.reset();
        for (const cp of accessSource?.() ?? []) this.set({ namespace: cp.namespace, name: cp.name }, cp.ready ? 1 : 0);
      },
    }),
    templateTestResults: new Counter({
      name: 'coder_k8s_template_test_results_total',
      help: 'CoderTemplateTests that reached a result, by result (Succeeded, Failed) and final reason',
      labelNames: ['result', 'reason'] as const,
      registers,
    }),
    credentialRefusals: new Counter({
      name: 'coder_k8s_credential_refusals_total',
      help: "Times an object's CredentialSecretReady condition turned False (a Secret it names may not be used), by kind and reason",
      labelNames: ['kind', 'reason'] as const,
      registers,
    }),
    reportOperatorAccess(source) {
      accessSource = source;
    },
    observeCoderCall({ method, route, outcome, seconds }) {
      coderApiRequestDuration.observe({ method, route, outcome }, seconds);
    },
  };
}
