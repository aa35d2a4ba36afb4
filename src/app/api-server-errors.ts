// The first request to the API server is where a wrong kubeconfig shows: an unreachable server, refused
// credentials, a certificate that does not match. Each becomes one line naming the server and the fix.
import { errorCode } from '../runtime/kube-http.ts';
import { StartupError } from '../runtime/startup-error.ts';

const unreachable: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
};

const certificateCodes =
  /^(?:CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(?:GET|VERIFY)_|ERR_TLS_CERT_ALTNAME_INVALID)/;

/** A StartupError for a failure to reach or be accepted by the API server; undefined for anything else. */
export function apiServerStartupError(server: string, err: unknown): StartupError | undefined {
  const at = `the Kubernetes API server at ${server}`;
  const status = errorCode(err);
  if (status === 401)
    return new StartupError(
      `${at} rejected the kubeconfig's credentials (401 Unauthorized): renew them (log in again, or a new token) or choose another context`,
    );
  if (status === 403)
    return new StartupError(
      `${at} refused the operator's identity (403 Forbidden): apply config/rbac/ and run as its ServiceAccount, or use a kubeconfig whose user may read discovery`,
    );
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (unreachable[code])
    return new StartupError(
      `cannot reach ${at} (${unreachable[code]}): check the server address of the kubeconfig's current context and that the cluster is running`,
    );
  if (certificateCodes.test(code))
    return new StartupError(
      `${at} presented a certificate the kubeconfig does not trust (${code}): check the cluster's certificate-authority-data in the kubeconfig`,
    );
  return undefined;
}
