// Whom the server trusts to vouch for users: the requestheader CA and names, and the
// client CA, read from kube-system/extension-apiserver-authentication at start, then watched, so a
// change (kube-apiserver rotating its front-proxy CA) takes effect at once. A ConfigMap that disappears
// later keeps the last trust; one never read means no front-proxy trust.
import { X509Certificate } from 'node:crypto';
import { Informer, type KubeObject } from '../../runtime/informer.ts';
import type { KubeHttp } from '../../runtime/kube-http.ts';
import type { Logger } from '../../runtime/logger.ts';
import { builtinResources } from '../../runtime/resource.ts';

export interface FrontProxyTrust {
  requestHeaderCAs: X509Certificate[];
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  clientCAs: X509Certificate[];
  /** Both CA bundles as PEM, for the TLS server's client certificate request. */
  caPem: string;
}

const configMapName = 'extension-apiserver-authentication';
const configMapPath = `/api/v1/namespaces/kube-system/configmaps/${configMapName}`;

type ConfigMap = KubeObject & { data?: Record<string, string> };

function certificates(pem: string | undefined): X509Certificate[] {
  return (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c));
}

function jsonList(value: string | undefined): string[] {
  if (!value) return [];
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
}

export function parseTrust(data: Record<string, string>): FrontProxyTrust {
  const requestHeaderPem = data['requestheader-client-ca-file'];
  const clientPem = data['client-ca-file'];
  return {
    requestHeaderCAs: certificates(requestHeaderPem),
    allowedNames: jsonList(data['requestheader-allowed-names']),
    usernameHeaders: jsonList(data['requestheader-username-headers']),
    groupHeaders: jsonList(data['requestheader-group-headers']),
    extraHeaderPrefixes: jsonList(data['requestheader-extra-headers-prefix']),
    clientCAs: certificates(clientPem),
    caPem: [requestHeaderPem, clientPem].filter(Boolean).join('\n'),
  };
}

export class FrontProxyTrustSource {
  current?: FrontProxyTrust;
  private watch?: Informer<ConfigMap>;
  private readonly http: KubeHttp;
  private readonly logger: Logger;
  private readonly onChange: (trust: FrontProxyTrust) => void;
  private lastData = '';

  constructor(http: KubeHttp, logger: Logger, onChange: (trust: FrontProxyTrust) => void) {
    this.http = http;
    this.logger = logger;
    this.onChange = onChange;
  }

  /** Reads the ConfigMap, then watches it; a refused read at start fails the start (the RBAC of deploy/ is missing). */
  async start(): Promise<void> {
    await this.read();
    this.watch = new Informer<ConfigMap>(this.http, builtinResources.configMap, {
      namespace: 'kube-system',
      fieldSelector: `metadata.name=${configMapName}`,
      logger: this.logger,
    });
    this.watch.addHandlers({
      onAdd: (cm) => this.use(cm),
      onUpdate: (_, cm) => this.use(cm),
      onDelete: () => this.logger.warn(`kube-system/${configMapName} was deleted; keeping the last trust`),
    });
    this.watch.start();
  }

  async stop(): Promise<void> {
    await this.watch?.stop();
  }

  private async read(): Promise<void> {
    let cm: ConfigMap;
    try {
      cm = await this.http.json('GET', configMapPath, { timeoutMs: 10_000 });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 403)
        throw new Error(
          `configure delegated authentication: the operator may not read kube-system/${configMapName} ` +
            '(apply config/rbac/authentication_reader_binding.yaml)',
        );
      this.logger.warn({ err: (err as Error).message }, `cannot read kube-system/${configMapName}; no front-proxy trust until it can`);
      return;
    }
    this.use(cm);
  }

  private use(cm: ConfigMap): void {
    const data = JSON.stringify(cm.data ?? {});
    if (data === this.lastData) return;
    this.lastData = data;
    try {
      this.current = parseTrust(cm.data ?? {});
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, `kube-system/${configMapName} cannot be read as trust; keeping the last trust`);
      return;
    }
    this.logger.info(
      {
        requestHeaderCAs: this.current.requestHeaderCAs.length,
        clientCAs: this.current.clientCAs.length,
        allowedNames: this.current.allowedNames,
      },
      'front-proxy trust loaded from kube-system/extension-apiserver-authentication',
    );
    this.onChange(this.current);
  }
}
