// Whom the server trusts to vouch for users (reference R3): the requestheader CA and names, and the
// client CA, read from kube-system/extension-apiserver-authentication at start and again every 30 s.
// A ConfigMap that disappears later keeps the last trust; one never read means no front-proxy trust.
import { X509Certificate } from 'node:crypto';
import type { KubeHttp } from '../runtime/kube-http.ts';
import type { Logger } from '../runtime/logger.ts';

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

const configMapPath = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';

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
  private timer?: NodeJS.Timeout;
  private readonly http: KubeHttp;
  private readonly logger: Logger;
  private readonly onChange: (trust: FrontProxyTrust) => void;
  private lastData = '';

  constructor(http: KubeHttp, logger: Logger, onChange: (trust: FrontProxyTrust) => void) {
    this.http = http;
    this.logger = logger;
    this.onChange = onChange;
  }

  /** Reads the ConfigMap; a refused read at start fails the start (the RBAC of deploy/ is missing). */
  async start(intervalMs = 30_000): Promise<void> {
    await this.read(true);
    this.timer = setInterval(() => void this.read(false).catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async read(atStart: boolean): Promise<void> {
    let cm: { data?: Record<string, string> };
    try {
      cm = await this.http.json('GET', configMapPath, { timeoutMs: 10_000 });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (atStart && code === 403)
        throw new Error(
          'configure delegated authentication: the operator may not read kube-system/extension-apiserver-authentication ' +
            '(apply config/rbac/authentication_reader_binding.yaml)',
        );
      this.logger.warn(
        { err: (err as Error).message },
        'cannot read kube-system/extension-apiserver-authentication; keeping the last trust',
      );
      return;
    }
    const data = JSON.stringify(cm.data ?? {});
    if (data === this.lastData) return;
    this.lastData = data;
    this.current = parseTrust(cm.data ?? {});
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
