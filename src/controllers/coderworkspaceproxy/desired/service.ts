// The desired Service in front of the proxy pods: port `http` (spec.service.port, default 80) to 3001.
import type { V1Service } from '@kubernetes/client-node';
import type { CoderWorkspaceProxy } from '../../../../generated/types/coderworkspaceproxy.ts';
import { serviceEnvelope } from '../../shared/workload/envelope.ts';
import { ownedMetadata, proxyHttpPort, proxyLabels } from './names.ts';

const defaultServicePort = 80;

/** The Service to apply (shared/workload/envelope.ts says what it leaves to the user and the server). */
export function buildService(proxy: CoderWorkspaceProxy): V1Service {
  const port = { name: 'http', port: proxy.spec?.service?.port || defaultServicePort, targetPort: proxyHttpPort, protocol: 'TCP' };
  return serviceEnvelope(ownedMetadata(proxy), proxy.spec?.service, proxyLabels(proxy), [port]);
}
