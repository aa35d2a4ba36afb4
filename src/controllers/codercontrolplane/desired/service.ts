// The desired Service in front of the Coder pods.
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { coderHttpPort, coderHttpsPort, controlPlaneLabels, ownedMetadata } from './names.ts';
import { servicePort, tlsEnabled } from '../../../controlplane/endpoints.ts';
import { serviceEnvelope } from '../../shared/workload/envelope.ts';

/** The Service to apply (shared/workload/envelope.ts says what it leaves to the user and the server). */
export function buildService(cp: CoderControlPlane): V1Service {
  return serviceEnvelope(ownedMetadata(cp), cp.spec?.service, controlPlaneLabels(cp), servicePorts(cp));
}

/**
 * Without TLS, `http` on the service port. With TLS, `https` 443 -> 8443 as well; when the service
 * port is 443 itself, HTTPS comes first and HTTP moves to 80. The protocol is set because it is part
 * of the list's merge key.
 */
function servicePorts(cp: CoderControlPlane): V1ServicePort[] {
  const port = servicePort(cp);
  const http = (p: number): V1ServicePort => ({ name: 'http', port: p, targetPort: coderHttpPort, protocol: 'TCP' });
  const https: V1ServicePort = { name: 'https', port: 443, targetPort: coderHttpsPort, protocol: 'TCP' };
  if (!tlsEnabled(cp)) return [http(port)];
  return port === 443 ? [https, http(80)] : [http(port), https];
}
