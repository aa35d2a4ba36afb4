// Who the MCP caller is to Kubernetes: over HTTP the user (and groups) --mcp-as names; over stdio the
// kubeconfig's own user, who started the process. Every tool asks the API server, by SubjectAccessReview
// (SelfSubjectAccessReview over stdio), whether that user may do what the tool is about to do, before the
// process's credentials do it: a tool reaches nothing the caller's RBAC does not grant, whatever the
// credentials would allow. Verdicts are reused for a few seconds.
import { reviewAccess, reviewOwnAccess, type AccessVerdict } from '../runtime/access-review.ts';
import { BoundedCache } from '../runtime/bounded-cache.ts';
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
  /** Undefined: the caller is the identity `http` authenticates as (the kubeconfig's user, over stdio). */
  readonly caller: Caller | undefined;
  private readonly http: KubeHttp;
  private readonly verdicts = new BoundedCache<AccessVerdict>({ maxEntries: maxVerdicts, ttlMs: verdictTtlMs });

  constructor(http: KubeHttp, caller: Caller | undefined) {
    this.http = http;
    this.caller = caller;
  }

  /** Resolves when the caller may do `attributes`; rejects with CallerForbiddenError otherwise. */
  async require(attributes: ResourceAttributes): Promise<void> {
    const key = JSON.stringify(attributes);
    let verdict = this.verdicts.get(key);
    if (!verdict) {
      verdict = this.caller
        ? await reviewAccess(
            this.http,
            { username: this.caller.user, groups: this.caller.groups },
            { resourceAttributes: { ...attributes } },
          )
        : await reviewOwnAccess(this.http, { resourceAttributes: { ...attributes } });
      this.verdicts.set(key, verdict);
    }
    if (!verdict.allowed) {
      const who = this.caller ? `${this.caller.user} (--mcp-as)` : "the kubeconfig's user";
      throw new CallerForbiddenError(forbiddenMessage(who, attributes, verdict.reason));
    }
  }
}

function forbiddenMessage(who: string, a: ResourceAttributes, reason: string): string {
  const resource = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.group ? `.${a.group}` : ''}`;
  const target = a.name ? ` "${a.name}"` : '';
  const where = a.namespace ? ` in namespace "${a.namespace}"` : a.verb === 'list' ? ' across all namespaces' : '';
  return `forbidden: ${who} may not ${a.verb} ${resource}${target}${where}${reason ? ` (${reason})` : ''}`;
}
