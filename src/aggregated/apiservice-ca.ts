// Keeps the APIService v1alpha1.aggregation.coder.com trusting the serving certificate: spec.caBundle =
// the certificate, insecureSkipTLSVerify off. Checked at start and every minute (the APIService may be
// applied after the operator starts); opt out with the annotation coder.com/manage-ca-bundle: "false".
import { isNotFound, type KubeHttp } from '../runtime/kube-http.ts';
import type { Logger } from '../runtime/logger.ts';
import { groupVersion } from './status.ts';

export const apiServiceName = `v1alpha1.${groupVersion.split('/')[0]}`;
const path = `/apis/apiregistration.k8s.io/v1/apiservices/${apiServiceName}`;

export class ApiServiceCaBundle {
  private timer?: NodeJS.Timeout;
  private lastProblem = '';
  private readonly http: KubeHttp;
  private readonly logger: Logger;
  private caPem: string;

  constructor(http: KubeHttp, logger: Logger, caPem: string) {
    this.http = http;
    this.logger = logger;
    this.caPem = caPem;
  }

  start(intervalMs = 60_000): void {
    void this.sync();
    this.timer = setInterval(() => void this.sync(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A renewed serving certificate's bundle: set on the APIService before the certificate is served. */
  async use(caPem: string): Promise<void> {
    this.caPem = caPem;
    await this.sync();
  }

  async sync(): Promise<void> {
    const caBundle = Buffer.from(this.caPem).toString('base64');
    try {
      const svc = await this.http.json<{
        metadata?: { annotations?: Record<string, string> };
        spec?: { caBundle?: string; insecureSkipTLSVerify?: boolean };
      }>('GET', path, { timeoutMs: 10_000 });
      if (svc.metadata?.annotations?.['coder.com/manage-ca-bundle'] === 'false') return;
      if (svc.spec?.caBundle === caBundle && !svc.spec?.insecureSkipTLSVerify) return;
      await this.http.json('PATCH', path, {
        contentType: 'application/merge-patch+json',
        body: { spec: { caBundle, insecureSkipTLSVerify: false } },
        timeoutMs: 10_000,
      });
      this.logger.info({ apiService: apiServiceName }, 'APIService caBundle set to the serving certificate');
      this.lastProblem = '';
    } catch (err) {
      const problem = isNotFound(err) ? `APIService ${apiServiceName} does not exist yet` : (err as Error).message;
      if (problem !== this.lastProblem)
        this.logger.warn({ apiService: apiServiceName, problem }, 'cannot set the APIService caBundle; retrying every minute');
      this.lastProblem = problem;
    }
  }
}
