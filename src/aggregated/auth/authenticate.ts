// Who sent a request: a bearer token (TokenReview, cached 10 s; failed reviews limited per source
// address) wins; else a client certificate from the front proxy, whose X-Remote-* headers name the user;
// else a client certificate of the cluster's client CA (CN = user, O = groups). A certificate counts only
// when it and its CA may be used for client authentication. Anything else is anonymous, which only the
// health paths accept. Every user found but system:anonymous is in system:authenticated.
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { reviewToken, type KubeUser } from '../../runtime/access-review.ts';
import { BoundedCache } from '../../runtime/bounded-cache.ts';
import type { KubeHttp } from '../../runtime/kube-http.ts';
import { FailedReviewLimit } from './failed-review-limit.ts';
import type { FrontProxyTrust } from './front-proxy-trust.ts';

export type UserInfo = KubeUser;

/** kube-apiserver's super-admins: neither authorization nor the in-flight limits turn them away. */
export const privilegedGroup = 'system:masters';

const tokenCacheMs = 10_000;
const maxCachedTokens = 1024;

const clientAuthUsage = '1.3.6.1.5.5.7.3.2';
const anyExtendedKeyUsage = '2.5.29.37.0';

/**
 * As Go's x509 verification for client certificates: a certificate without extended key usages may be
 * used for anything; one with them must list clientAuth (or any usage).
 */
function allowsClientAuth(cert: X509Certificate): boolean {
  const usages = cert.keyUsage ?? [];
  return usages.length === 0 || usages.includes(clientAuthUsage) || usages.includes(anyExtendedKeyUsage);
}

function issuedBy(cert: X509Certificate, cas: X509Certificate[], now: Date): boolean {
  const valid = new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);
  return valid && allowsClientAuth(cert) && cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey) && allowsClientAuth(ca));
}

/**
 * The subject's common name and organizations as Go's pkix.Name.FillFromRDNSequence reads them, which
 * kube-apiserver's x509.CommonNameUserConversion takes as user and groups: every attribute of every RDN in
 * order (a multi-valued `CN=alice+O=system:masters` too), the last CN winning, values unescaped.
 * `cert.subject` is OpenSSL's escaped text (`bob\, admin`), so the parsed legacy object is read instead.
 */
function subjectNames(cert: X509Certificate): { commonName: string; organizations: string[] } {
  const subject = (cert.toLegacyObject().subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
  const values = (key: string) => [subject[key] ?? []].flat();
  return { commonName: values('CN').at(-1) ?? '', organizations: values('O') };
}

const allAuthenticated = 'system:authenticated';
const allUnauthenticated = 'system:unauthenticated';
const anonymousUser = 'system:anonymous';

/**
 * kube-apiserver's AuthenticatedGroupAdder, around every authenticator of a delegated server
 * (k8s.io/apiserver pkg/authentication/group/authenticated_group_adder.go, authenticatorfactory/delegating.go):
 * system:authenticated is added, except for system:anonymous and for a user already in it or in
 * system:unauthenticated (the front proxy forwards kube-apiserver's anonymous requests as such).
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === anonymousUser || user.groups.some((g) => g === allAuthenticated || g === allUnauthenticated)) return user;
  return { ...user, groups: [...user.groups, allAuthenticated] };
}

/** Every value of each header, one per line as sent: `req.headers` would join repeated lines with ", ". */
function headerValues(req: IncomingMessage, names: string[]): string[] {
  return names.flatMap((name) => req.headersDistinct[name.toLowerCase()] ?? []);
}

/** An extra's key as kube-apiserver escaped it into a header name; invalid escaping is kept as sent, as Go's requestheader does. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

export class Authenticator {
  private readonly http: KubeHttp;
  private readonly trust: () => FrontProxyTrust | undefined;
  private readonly tokens = new BoundedCache<{ user?: UserInfo }>({ maxEntries: maxCachedTokens, ttlMs: tokenCacheMs });
  private readonly failedReviews = new FailedReviewLimit();

  constructor(http: KubeHttp, trust: () => FrontProxyTrust | undefined) {
    this.http = http;
    this.trust = trust;
  }

  /** The user, or undefined for an anonymous or unverifiable request; a 429 when its source sent too many unknown tokens. */
  async authenticate(req: IncomingMessage): Promise<UserInfo | undefined> {
    const user = await this.identify(req);
    return user && withAuthenticatedGroup(user);
  }

  private async identify(req: IncomingMessage): Promise<UserInfo | undefined> {
    const authorization = req.headers.authorization;
    if (authorization) {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
      return token ? this.reviewToken(token, req.socket.remoteAddress ?? '') : undefined;
    }
    const socket = req.socket as TLSSocket;
    const raw = socket.getPeerCertificate?.()?.raw;
    const trust = this.trust();
    if (!raw || !trust) return undefined;
    const cert = new X509Certificate(raw);
    const now = new Date();
    if (issuedBy(cert, trust.requestHeaderCAs, now)) {
      const { commonName } = subjectNames(cert);
      if (trust.allowedNames.length > 0 && !trust.allowedNames.includes(commonName)) return undefined;
      const username = headerValues(req, trust.usernameHeaders)[0];
      if (!username) return undefined;
      const groups = headerValues(req, trust.groupHeaders);
      const extra: Record<string, string[]> = {};
      for (const [name, values] of Object.entries(req.headersDistinct)) {
        const prefix = trust.extraHeaderPrefixes.find((p) => name.startsWith(p.toLowerCase()));
        if (!prefix || !values) continue;
        // Node gives the name lowercased; unescaped after that, as Go does ("%41" stays "A").
        const key = unescapeExtraKey(name.slice(prefix.length));
        (extra[key] ??= []).push(...values);
      }
      return { username, groups, extra };
    }
    if (issuedBy(cert, trust.clientCAs, now)) {
      const { commonName, organizations } = subjectNames(cert);
      if (!commonName) return undefined;
      return { username: commonName, groups: organizations, extra: {} };
    }
    return undefined;
  }

  private async reviewToken(token: string, source: string): Promise<UserInfo | undefined> {
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.tokens.get(key);
    if (cached) return cached.user;
    this.failedReviews.check(source);
    let user: UserInfo | undefined;
    try {
      user = await reviewToken(this.http, token);
    } catch {
      // A TokenReview outage is a 401 for the caller, not cached.
      return undefined;
    }
    if (!user) this.failedReviews.failed(source);
    this.tokens.set(key, { user });
    return user;
  }
}
