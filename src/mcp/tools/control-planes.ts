// Tools about CoderControlPlanes and what the operator made for them: the objects, their pods and
// their Deployment.
import type { V1Deployment, V1PodList } from '@kubernetes/client-node';
import { z } from 'zod';
import type { CoderControlPlane, CoderControlPlaneList } from '../../../generated/types/codercontrolplane.ts';
import { defineTool, kubeRead, optionalNamespace, requiredName, resourcePath, rfc3339Seconds } from '../tool.ts';

const controlPlanes = { group: 'coder.com', resource: 'codercontrolplanes' };

export const listControlPlanes = defineTool({
  name: 'list_control_planes',
  description: 'List CoderControlPlane resources.',
  input: { namespace: optionalNamespace },
  async run({ namespace }, ctx) {
    const list = await kubeRead<CoderControlPlaneList>(
      ctx,
      { verb: 'list', ...controlPlanes, ...(namespace ? { namespace } : {}) },
      resourcePath('coder.com/v1alpha1', 'codercontrolplanes', namespace),
    );
    return {
      items: list.items.map((cp) => ({
        name: cp.metadata.name ?? '',
        namespace: cp.metadata.namespace ?? '',
        phase: cp.status?.phase ?? '',
        readyReplicas: cp.status?.readyReplicas ?? 0,
        url: cp.status?.url ?? '',
      })),
    };
  },
});

export const getControlPlaneStatus = defineTool({
  name: 'get_control_plane_status',
  description: 'Get status for a CoderControlPlane resource.',
  input: { namespace: requiredName('namespace'), name: requiredName('name') },
  async run({ namespace, name }, ctx) {
    const cp = await kubeRead<CoderControlPlane>(
      ctx,
      { verb: 'get', ...controlPlanes, namespace, name },
      resourcePath('coder.com/v1alpha1', 'codercontrolplanes', namespace, name),
    );
    const conditions = cp.status?.conditions ?? [];
    return {
      observedGeneration: cp.status?.observedGeneration ?? 0,
      readyReplicas: cp.status?.readyReplicas ?? 0,
      url: cp.status?.url ?? '',
      phase: cp.status?.phase ?? '',
      conditions: conditions.length
        ? conditions.map((c) => ({
            type: c.type,
            status: c.status,
            reason: c.reason,
            message: c.message,
            observedGeneration: c.observedGeneration,
            lastTransitionTime: c.lastTransitionTime,
          }))
        : null,
    };
  },
});

const defaultPodLimit = 100;
const maxPodLimit = 500;

export const listControlPlanePods = defineTool({
  name: 'list_control_plane_pods',
  description: 'List pods for a CoderControlPlane by namespace and name.',
  input: {
    namespace: requiredName('namespace'),
    name: requiredName('name'),
    limit: z.number().int().optional().describe(`at most this many pods (default ${defaultPodLimit}, at most ${maxPodLimit})`),
  },
  async run({ namespace, name, limit }, ctx) {
    const wanted = !limit || limit <= 0 ? defaultPodLimit : Math.min(limit, maxPodLimit);
    const selector = `app.kubernetes.io/name=coder-control-plane,app.kubernetes.io/instance=${name},app.kubernetes.io/managed-by=coder-k8s`;
    const pods = await kubeRead<V1PodList>(
      ctx,
      { verb: 'list', group: '', resource: 'pods', namespace },
      resourcePath('v1', 'pods', namespace),
      {
        query: { labelSelector: selector },
      },
    );
    const sorted = [...pods.items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    return {
      items: sorted.slice(0, wanted).map((pod) => {
        const statuses = pod.status?.containerStatuses ?? [];
        return {
          name: pod.metadata?.name ?? '',
          namespace: pod.metadata?.namespace ?? '',
          phase: pod.status?.phase ?? '',
          nodeName: pod.spec?.nodeName,
          readyContainers: statuses.filter((s) => s.ready).length,
          totalContainers: pod.spec?.containers.length || statuses.length,
          startTime: rfc3339Seconds(pod.status?.startTime),
        };
      }),
      truncated: sorted.length > wanted,
    };
  },
});

export const getControlPlaneDeploymentStatus = defineTool({
  name: 'get_control_plane_deployment_status',
  description: 'Get Deployment status for a CoderControlPlane by namespace and name.',
  input: { namespace: requiredName('namespace'), name: requiredName('name') },
  async run({ namespace, name }, ctx) {
    const deployment = await kubeRead<V1Deployment>(
      ctx,
      { verb: 'get', group: 'apps', resource: 'deployments', namespace, name },
      resourcePath('apps/v1', 'deployments', namespace, name),
    );
    const status = deployment.status ?? {};
    const conditions = [...(status.conditions ?? [])].sort((a, b) => a.type.localeCompare(b.type));
    return {
      name: deployment.metadata?.name ?? '',
      namespace: deployment.metadata?.namespace ?? '',
      replicas: deployment.spec?.replicas ?? 0,
      readyReplicas: status.readyReplicas ?? 0,
      updatedReplicas: status.updatedReplicas ?? 0,
      availableReplicas: status.availableReplicas ?? 0,
      unavailableReplicas: status.unavailableReplicas ?? 0,
      observedGeneration: status.observedGeneration ?? 0,
      conditions: conditions.map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        lastUpdateTime: rfc3339Seconds(c.lastUpdateTime),
        lastTransitionTime: rfc3339Seconds(c.lastTransitionTime),
      })),
    };
  },
});
