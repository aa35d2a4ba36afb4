// Who the MCP caller is to Kubernetes: the user (and groups) --mcp-as names. Every tool asks the API
// server, by SubjectAccessReview, whether that user may do what the tool is about to do, before the
// operator's own credentials do it: a tool reaches nothing the caller's RBAC does not grant, whatever
// the operator's role would allow. Verdicts are reused for a few seconds.
import type { KubeHttp } from '../runtime/kube-http.ts';

export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** Undefined for cluster-scoped resources and for lists across all namespaces. */
  namespace?: string;
  name?: string;
}

export interface Caller {
  user: string;
  groups: string[];
}

/** A tool call the caller's RBAC does not allow. */
export class CallerForbiddenError extends Error {
  override readonly name = 'CallerForbiddenError';
}

const verdictTtlMs = 5_000;
const maxVerdicts = 512;

export class CallerAccess {
  readonly caller: Caller;
  private readonly http: KubeHttp;
  private readonly verdicts = new Map<string, { allowed: boolean; reason: string; at: number }>();

  constructor(http: KubeHttp, caller: Caller) {
    this.http = http;
    this.caller = caller;
  }

  /** Resolves when the caller may do `attributes`; rejects with CallerForbiddenError otherwise. */
  async require(attributes: ResourceAttributes): Promise<void> {
    const key = JSON.stringify(attributes);
    const now = Date.now();
    let verdict = this.verdicts.get(key);
    if (!verdict || now - verdict.at >= verdictTtlMs) {
      verdict = { ...(await this.review(attributes)), at: now };
      this.verdicts.delete(key);
      this.verdicts.set(key, verdict);
      if (this.verdicts.size > maxVerdicts) this.verdicts.delete(this.verdicts.keys().next().value!);
    }
    if (!verdict.allowed) throw new CallerForbiddenError(forbiddenMessage(this.caller.user, attributes, verdict.reason));
  }

  private async review(attributes: ResourceAttributes): Promise<{ allowed: boolean; reason: string }> {
    const review = await this.http.json<{ status?: { allowed?: boolean; denied?: boolean; reason?: string } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        timeoutMs: 10_000,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: this.caller.user, groups: this.caller.groups, resourceAttributes: attributes },
        },
      },
    );
    return { allowed: review.status?.allowed === true && review.status.denied !== true, reason: review.status?.reason ?? '' };
  }
}

function forbiddenMessage(user: string, a: ResourceAttributes, reason: string): string {
  const resource = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.group ? `.${a.group}` : ''}`;
  const target = a.name ? ` "${a.name}"` : '';
  const where = a.namespace ? ` in namespace "${a.namespace}"` : a.verb === 'list' ? ' across all namespaces' : '';
  return `forbidden: ${user} (--mcp-as) may not ${a.verb} ${resource}${target}${where}${reason ? ` (${reason})` : ''}`;
}
