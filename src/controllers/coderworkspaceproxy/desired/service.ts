// The desired Service in front of the proxy pods: port `http` (spec.service.port, default 80) to 3001.
import type { V1Service } from '@kubernetes/client-node';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { definedEntries } from '../../runtime/object-names.ts';
import { ownedMetadata, proxyHttpPort, proxyLabels } from './names.ts';

const defaultServicePort = 80;

/** Annotations are exactly spec.service.annotations; fields the server assigns (clusterIP, nodePorts) are left out. */
export function buildService(proxy: CoderWorkspaceProxy): V1Service {
  const metadata = ownedMetadata(proxy);
  const annotations = definedEntries(proxy.spec?.service?.annotations);
  if (annotations) metadata.annotations = annotations;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      type: proxy.spec?.service?.type || 'ClusterIP',
      selector: proxyLabels(proxy),
      ports: [{ name: 'http', port: proxy.spec?.service?.port || defaultServicePort, targetPort: proxyHttpPort, protocol: 'TCP' }],
    },
  };
}
