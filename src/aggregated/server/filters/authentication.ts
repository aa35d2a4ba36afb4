// The authentication filter: every request but the health paths needs a user (auth/authenticate.ts says
// how one is found); none is a 401, which the failure answer marks with WWW-Authenticate: Bearer.
import type { IncomingMessage } from 'node:http';
import type { Authenticator, UserInfo } from '../../auth/authenticate.ts';
import { unauthorized } from '../../status.ts';

export async function authenticatedUser(authenticator: Authenticator, req: IncomingMessage): Promise<UserInfo> {
  const user = await authenticator.authenticate(req);
  if (!user) throw unauthorized();
  return user;
}
