// The bench's baseline: what the API server sustains for the same objects without an operator. A plain
// client creates each control plane, its Deployment and Service, and sets its status (4 writes).
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { builtinResources, collectionPath, objectPath } from '../../../src/runtime/resource.ts';
import { inParallel } from './pool.ts';

export async function bareClientRun(http: KubeHttp, names: { namespace: string; name: string }[], concurrency: number): Promise<void> {
  await inParallel(names.length, concurrency, async (i) => {
    const { namespace, name } = names[i]!;
    const labels = { 'app.kubernetes.io/name': 'coder', 'app.kubernetes.io/instance': name };
    await http.json('POST', collectionPath(coderControlPlaneResource, namespace), {
      body: {
        apiVersion: 'coder.com/v1alpha1',
        kind: 'CoderControlPlane',
        metadata: { name, namespace },
        spec: { operatorAccess: { disabled: true } },
      },
    });
    await http.json('POST', collectionPath(builtinResources.deployment, namespace), {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'coder', image: 'ghcr.io/coder/coder:latest' }] } },
        },
      },
    });
    await http.json('POST', collectionPath(builtinResources.service, namespace), {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels }, spec: { selector: labels, ports: [{ port: 80 }] } },
    });
    await http.json('PATCH', `${objectPath(coderControlPlaneResource, namespace, name)}/status`, {
      contentType: 'application/merge-patch+json',
      body: { status: { phase: 'Ready', readyReplicas: 1 } },
    });
  });
}
