// Keeps the APIService v1alpha1.aggregation.coder.com trusting the serving CA: spec.caBundle = ca.crt,
// insecureSkipTLSVerify off. The APIService is watched by name (which a Role limited to that one name
// allows), so one applied after the operator started is set at once. Opt out with the annotation
// coder.com/manage-ca-bundle: "false". Nothing here stops the server: a failed write is retried with
// backoff up to a minute, and a problem (no APIService yet, RBAC missing) is logged at most every 5 min.
import { Backoff } from '../../runtime/backoff.ts';
import { Informer, type KubeObject } from '../../runtime/informer.ts';
import { isNotFound, type KubeHttp } from '../../runtime/kube-http.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import { groupVersion } from '../status.ts';

export const apiServiceName = `v1alpha1.${groupVersion.split('/')[0]}`;
const path = `/apis/apiregistration.k8s.io/v1/apiservices/${apiServiceName}`;
const warnEveryMs = 5 * 60_000;

const apiServices: ResourceKind = {
  group: 'apiregistration.k8s.io',
  version: 'v1',
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  listKind: 'APIServiceList',
  plural: 'apiservices',
  namespaced: false,
};

type ApiService = KubeObject & { spec?: { caBundle?: string; insecureSkipTLSVerify?: boolean } };

export class ApiServiceCaBundle {
  private readonly http: KubeHttp;
  private readonly logger: Logger;
  private readonly watch: Informer<ApiService>;
  private readonly backoff = new Backoff({ initialMs: 1_000, maxMs: 60_000, resetAfterMs: 120_000 });
  private caPem: string;
  private retry?: NodeJS.Timeout;
  private lastWarnAt = -Infinity;
  private stopped = false;
  private toldMissing = false;
  /** One sync at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(http: KubeHttp, logger: Logger, caPem: string) {
    this.http = http;
    this.logger = logger;
    this.caPem = caPem;
    this.watch = new Informer<ApiService>(http, apiServices, {
      fieldSelector: `metadata.name=${apiServiceName}`,
      backoffMs: { initial: 1_000, max: 60_000 },
      onError: (err) => {
        this.problem(`cannot watch the APIService: ${err.message}`);
        // Without the watch (a role from before it had list and watch), this keeps trying by reading it.
        void this.sync();
      },
    });
    this.watch.addHandlers({ onAdd: () => void this.sync(), onUpdate: () => void this.sync() });
  }

  start(): void {
    this.watch.start();
    void this.sync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.watch.stop();
    await this.queue;
  }

  /** A new CA bundle: set on the APIService before a certificate it signed is served. */
  async use(caPem: string): Promise<void> {
    this.caPem = caPem;
    await this.sync();
  }

  sync(): Promise<void> {
    this.queue = this.queue.then(() => (this.stopped ? undefined : this.syncOnce()));
    return this.queue;
  }

  private async syncOnce(): Promise<void> {
    clearTimeout(this.retry);
    const caBundle = Buffer.from(this.caPem).toString('base64');
    try {
      const svc = await this.http.json<ApiService>('GET', path, { timeoutMs: 10_000 });
      if (svc.metadata?.annotations?.['coder.com/manage-ca-bundle'] === 'false') {
        this.logger.debug({ apiService: apiServiceName }, 'APIService annotated coder.com/manage-ca-bundle: "false"; caBundle left alone');
        return;
      }
      if (svc.spec?.caBundle === caBundle && !svc.spec?.insecureSkipTLSVerify) return;
      await this.http.json('PATCH', path, {
        contentType: 'application/merge-patch+json',
        body: { spec: { caBundle, insecureSkipTLSVerify: false } },
        timeoutMs: 10_000,
      });
      this.logger.info({ apiService: apiServiceName }, 'APIService caBundle set to the serving CA');
      this.toldMissing = false;
    } catch (err) {
      // A missing APIService needs no retry: the watch tells when it is created.
      if (isNotFound(err)) {
        if (!this.toldMissing)
          this.logger.info({ apiService: apiServiceName }, 'the APIService does not exist yet; its caBundle is set when it is created');
        this.toldMissing = true;
        return;
      }
      this.problem((err as Error).message);
      this.retry = setTimeout(() => void this.sync(), this.backoff.next());
      this.retry.unref();
    }
  }

  private problem(problem: string): void {
    if (Date.now() - this.lastWarnAt < warnEveryMs) return;
    this.lastWarnAt = Date.now();
    this.logger.warn({ apiService: apiServiceName, problem }, 'cannot set the APIService caBundle; serving on, retrying');
  }
}
