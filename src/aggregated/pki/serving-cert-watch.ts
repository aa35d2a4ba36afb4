// Keeps the served certificate current without a restart (hot reload): the Secret is watched, so a
// certificate another replica renewed, or one written by hand, is served at once; a Secret that is
// deleted, emptied, unreadable or holds a certificate due for renewal is renewed here (serving-cert.ts;
// the write comes back through the watch to every replica). Time alone ages a certificate too, so it
// is looked at again every 12 h.
import { Informer } from '../../runtime/informer.ts';
import type { KubeHttp } from '../../runtime/kube-http.ts';
import type { Logger } from '../../runtime/logger.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { ensureServingCert, planServingSecret, servingCertSecretName, type SecretBody, type ServingMaterial } from './serving-cert.ts';

const recheckMs = 12 * 3_600_000;

export class ServingCertWatch {
  private readonly watch: Informer<SecretBody & { metadata?: { name?: string; namespace?: string } }>;
  private readonly http: KubeHttp;
  private readonly logger: Logger;
  private readonly namespace: string;
  private readonly onChange: (material: ServingMaterial) => Promise<void>;
  private current: ServingMaterial;
  private timer?: NodeJS.Timeout;
  /** One change at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  /** `onChange` gets every new certificate after `current`, the one served at start. */
  constructor(
    http: KubeHttp,
    logger: Logger,
    namespace: string,
    current: ServingMaterial,
    onChange: (material: ServingMaterial) => Promise<void>,
  ) {
    this.http = http;
    this.logger = logger;
    this.namespace = namespace;
    this.current = current;
    this.onChange = onChange;
    this.watch = new Informer(http, builtinResources.secret, {
      namespace,
      fieldSelector: `metadata.name=${servingCertSecretName}`,
      logger,
    });
    this.watch.addHandlers({
      onAdd: (secret) => this.seen(secret),
      onUpdate: (_, secret) => this.seen(secret),
      onDelete: () => this.enqueue(() => this.renew()),
    });
  }

  start(): void {
    this.watch.start();
    this.timer = setInterval(() => this.enqueue(() => this.renew()), recheckMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.watch.stop();
    await this.queue;
  }

  private seen(secret: SecretBody): void {
    this.enqueue(async () => {
      const plan = planServingSecret(secret.data, this.namespace, new Date());
      if (plan.write) await this.renew();
      else await this.use(plan.material);
    });
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue
      .then(step)
      .catch((err: unknown) =>
        this.logger.warn(
          { err: (err as Error).message, secret: { namespace: this.namespace, name: servingCertSecretName } },
          'cannot renew the serving certificate; serving the current one',
        ),
      );
  }

  private async renew(): Promise<void> {
    await this.use(await ensureServingCert(this.http, this.logger, this.namespace));
  }

  private async use(material: ServingMaterial): Promise<void> {
    if (material.cert === this.current.cert && material.caBundle === this.current.caBundle) return;
    this.current = material;
    await this.onChange(material);
    this.logger.info({ secret: { namespace: this.namespace, name: servingCertSecretName } }, 'serving certificate reloaded');
  }
}
