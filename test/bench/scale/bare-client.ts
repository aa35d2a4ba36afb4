// The bench's baselines: what the API server sustains for the same objects without an operator.
// bareClientRun: a plain client creates each control plane, its Deployment and Service, and sets its
// status (4 writes). bareOperatorWorkRun: a plain client does the operator's own writes for each control
// plane, built by the operator's own builders (ServiceAccount, Role, RoleBinding, Deployment, Service and
// one status write), as many at once as the operator's reconciles.
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { buildDeployment } from '../../../src/controllers/codercontrolplane/desired/deployment.ts';
import { buildServiceAccount } from '../../../src/controllers/codercontrolplane/desired/service-account.ts';
import { buildService } from '../../../src/controllers/codercontrolplane/desired/service.ts';
import { buildWorkspaceRbac } from '../../../src/controllers/codercontrolplane/desired/workspace-rbac.ts';
import type { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { builtinResources, collectionPath, objectPath } from '../../../src/runtime/resource.ts';
import { inParallel } from './pool.ts';

/** The bench's control plane (operator access off), in the operator run and both baselines. */
export const controlPlaneBody = (namespace: string, name: string) => ({
  apiVersion: 'coder.com/v1alpha1',
  kind: 'CoderControlPlane',
  metadata: { name, namespace },
  spec: { operatorAccess: { disabled: true } },
});

export async function bareClientRun(http: KubeHttp, names: { namespace: string; name: string }[], concurrency: number): Promise<void> {
  await inParallel(names.length, concurrency, async (i) => {
    const { namespace, name } = names[i]!;
    const labels = { 'app.kubernetes.io/name': 'coder', 'app.kubernetes.io/instance': name };
    await http.json('POST', collectionPath(coderControlPlaneResource, namespace), { body: controlPlaneBody(namespace, name) });
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

/**
 * Creates the control planes `createConcurrency` at once, as the bench does for the operator, and does the
 * operator's writes for each as soon as it exists, `workConcurrency` at once and as `worker` (the operator's
 * identity, so Role writes pay the same escalation checks): the children by POST, in the operator's order
 * (the ServiceAccount, the Role before its RoleBinding), then one status write.
 */
export async function bareOperatorWorkRun(
  creator: KubeHttp,
  worker: KubeHttp,
  names: { namespace: string; name: string }[],
  createConcurrency: number,
  workConcurrency: number,
): Promise<void> {
  const created = names.map(() => Promise.withResolvers<CoderControlPlane>());
  for (const c of created) c.promise.catch(() => undefined);
  const creates = inParallel(names.length, createConcurrency, async (i) => {
    const { namespace, name } = names[i]!;
    try {
      created[i]!.resolve(
        await creator.json<CoderControlPlane>('POST', collectionPath(coderControlPlaneResource, namespace), {
          body: controlPlaneBody(namespace, name),
        }),
      );
    } catch (err) {
      created[i]!.reject(err);
      throw err;
    }
  });
  const post = (resource: Parameters<typeof collectionPath>[0], body: { metadata?: { namespace?: string } }) =>
    worker.json('POST', collectionPath(resource, body.metadata!.namespace), { body });
  const work = inParallel(names.length, workConcurrency, async (i) => {
    const cp = await created[i]!.promise;
    const serviceAccount = buildServiceAccount(cp);
    if (serviceAccount) await post(builtinResources.serviceAccount, serviceAccount);
    await Promise.all([
      ...buildWorkspaceRbac(cp).map(async ({ role, roleBinding }) => {
        await post(builtinResources.role, role);
        await post(builtinResources.roleBinding, roleBinding);
      }),
      post(builtinResources.deployment, buildDeployment(cp, { accessUrlFromEnvFrom: false })),
      post(builtinResources.service, buildService(cp)),
    ]);
    await worker.json('PATCH', `${objectPath(coderControlPlaneResource, cp.metadata.namespace, cp.metadata.name!)}/status`, {
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          observedGeneration: cp.metadata.generation,
          conditions: [
            { type: 'Ready', status: 'True', reason: 'Available', message: 'bench', lastTransitionTime: new Date().toISOString() },
          ],
        },
      },
    });
  });
  await Promise.all([creates, work]);
}
