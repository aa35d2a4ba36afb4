// The authorization filter: the user may do what the request asks, or it ends with 403
// saying what was refused, as kube-apiserver words it; a review that cannot be made is a 503 to retry.
import type { Logger } from '../../../runtime/logger.ts';
import type { UserInfo } from '../../auth/authenticate.ts';
import type { Attributes, Authorizer } from '../../auth/authorize.ts';
import { ApiStatusError, forbidden, group } from '../../status.ts';

export class AuthorizationFilter {
  private readonly authorizer: Authorizer;
  private readonly logger: Logger;

  constructor(authorizer: Authorizer, logger: Logger) {
    this.authorizer = authorizer;
    this.logger = logger;
  }

  /** Resolves when `user` may; throws the 403 or 503 to answer otherwise. */
  async check(user: UserInfo, attributes: Attributes): Promise<void> {
    let verdict;
    try {
      verdict = await this.authorizer.authorize(user, attributes);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'SubjectAccessReview failed');
      // kube-apiserver cannot be asked now; the same request may succeed once it can.
      throw new ApiStatusError(
        503,
        'ServiceUnavailable',
        'authorization could not be checked: the SubjectAccessReview to kube-apiserver failed; try again later',
        { retryAfterSeconds: 1 },
      );
    }
    if (verdict.allowed) return;
    const what =
      'resource' in attributes
        ? `${attributes.verb} resource "${attributes.resource}" in API group "${group}"${attributes.namespace ? ` in the namespace "${attributes.namespace}"` : ' at the cluster scope'}`
        : `${attributes.verb} path "${attributes.path}"`;
    throw forbidden(`User "${user.username}" cannot ${what}${verdict.reason ? `: ${verdict.reason}` : ''}`);
  }
}
