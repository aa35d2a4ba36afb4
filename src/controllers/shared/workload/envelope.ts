// The envelope of what an owner runs, the same for the control plane, provisioners and proxies: the standard
// labels, the metadata with the controller owner reference, and the Deployment and Service around the
// kind's own pod spec and ports (the selector is the labels; the pod template carries only the labels, the
// operator's own annotations and a carried-over restartedAt).
import type { V1Deployment, V1ObjectMeta, V1PodSpec, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { controllerOwnerReference, definedEntries } from '../../../runtime/object-names.ts';
import { restartedAtAnnotation } from './pod-spec.ts';

/** The three standard labels of every child, also the Deployment's and Service's selector. */
export function workloadLabels(app: string, instance: string): Record<string, string> {
  return { 'app.kubernetes.io/name': app, 'app.kubernetes.io/instance': instance, 'app.kubernetes.io/managed-by': 'coder-k8s' };
}

/** The metadata every child starts from: name, namespace, labels and the owner's controller owner reference. */
export function childMetadata(
  type: { apiVersion: string; kind: string },
  owner: { metadata: { name?: string; namespace?: string; uid?: string } },
  child: { name: string; namespace: string | undefined; labels: Record<string, string> },
): V1ObjectMeta {
  return { name: child.name, namespace: child.namespace, labels: child.labels, ownerReferences: [controllerOwnerReference(type, owner)] };
}

export interface DeploymentEnvelope {
  metadata: V1ObjectMeta;
  /** The pods' labels, which the Deployment selects by. */
  podLabels: Record<string, string>;
  /** spec.replicas; 1 when unset. */
  replicas: number | undefined;
  /** Pod template annotations of the operator's own (a checksum that rolls the pods when it changes). */
  podAnnotations?: Record<string, string>;
  /** The live pod template's kubectl.kubernetes.io/restartedAt, carried over so a rollout restart survives reconciles. */
  restartedAt: string | undefined;
  podSpec: V1PodSpec;
}

/** The Deployment to apply: the pod template is the operator's alone. A copy, so no two objects share a list. */
export function deploymentEnvelope(d: DeploymentEnvelope): V1Deployment {
  const annotations = { ...d.podAnnotations, ...(d.restartedAt !== undefined ? { [restartedAtAnnotation]: d.restartedAt } : {}) };
  return structuredClone({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: d.metadata,
    spec: {
      replicas: d.replicas ?? 1,
      selector: { matchLabels: { ...d.podLabels } },
      template: {
        metadata: { labels: { ...d.podLabels }, ...(Object.keys(annotations).length ? { annotations } : {}) },
        spec: d.podSpec,
      },
    },
  });
}

/** The spec.service every kind with a Service has. */
export interface ServiceSpec {
  type?: string;
  annotations?: { [key: string]: string | undefined };
}

/**
 * The Service to apply: annotations are exactly spec.service.annotations, the type ClusterIP unless it says
 * otherwise. Fields the server assigns (clusterIP, nodePorts) are left out, so they stay as they are.
 */
export function serviceEnvelope(
  metadata: V1ObjectMeta,
  service: ServiceSpec | undefined,
  selector: Record<string, string>,
  ports: V1ServicePort[],
): V1Service {
  const annotations = definedEntries(service?.annotations);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: annotations ? { ...metadata, annotations } : metadata,
    spec: { type: service?.type || 'ClusterIP', selector, ports },
  };
}
