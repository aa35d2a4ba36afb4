// The questions the operator asks kube-apiserver about a request: who does this bearer token belong to
// (TokenReview), may that user do this (SubjectAccessReview), and may the identity the operator itself runs
// as do this (SelfSubjectAccessReview). Each review is one call with a deadline; a failed call throws, so the
// caller decides what an outage means.
import type { KubeHttp } from './kube-http.ts';

export interface KubeUser {
  username: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export type AccessAttributes =
  { resourceAttributes: Record<string, string | undefined> } | { nonResourceAttributes: { path: string; verb: string } };

export interface AccessVerdict {
  allowed: boolean;
  /** The authorizer's reason, empty when it gave none. */
  reason: string;
}

const reviewTimeoutMs = 10_000;

/** The user the token authenticates as, or undefined when kube-apiserver does not know it. */
export async function reviewToken(http: KubeHttp, token: string): Promise<KubeUser | undefined> {
  const review = await http.json<{
    status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
  }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    timeoutMs: reviewTimeoutMs,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  const user = review.status?.user;
  if (!review.status?.authenticated || !user?.username) return undefined;
  return { username: user.username, uid: user.uid, groups: user.groups ?? [], extra: user.extra ?? {} };
}

/** Whether `user` may do what `attributes` describe. */
export async function reviewAccess(
  http: KubeHttp,
  user: Pick<KubeUser, 'username' | 'groups'> & Partial<Pick<KubeUser, 'uid' | 'extra'>>,
  attributes: AccessAttributes,
): Promise<AccessVerdict> {
  const review = await http.json<{ status?: { allowed?: boolean; denied?: boolean; reason?: string } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    {
      timeoutMs: reviewTimeoutMs,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attributes },
      },
    },
  );
  return { allowed: review.status?.allowed === true && review.status.denied !== true, reason: review.status?.reason ?? '' };
}

/** Whether the identity `http` authenticates as may do what `attributes` describe (any authenticated user may ask). */
export async function reviewOwnAccess(http: KubeHttp, attributes: AccessAttributes): Promise<AccessVerdict> {
  const review = await http.json<{ status?: { allowed?: boolean; denied?: boolean; reason?: string } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      timeoutMs: reviewTimeoutMs,
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { ...attributes } },
    },
  );
  return { allowed: review.status?.allowed === true && review.status.denied !== true, reason: review.status?.reason ?? '' };
}
