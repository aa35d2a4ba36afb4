// A builder of CoderControlPlane objects for the desired-state builder tests.
import type { V1Container, V1Deployment, V1EnvFromSource, V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type {
  CoderControlPlane, CoderControlPlaneSpec, CoderControlPlaneSpecExposeGateway, CoderControlPlaneSpecExposeIngress,
  CoderControlPlaneSpecLivenessProbe, CoderControlPlaneSpecRbac, CoderControlPlaneSpecService, CoderControlPlaneSpecServiceAccount,
} from '../../../generated/types/codercontrolplane.ts';

export class ControlPlaneBuilder {
  private readonly cp: CoderControlPlane;

  constructor(name: string) {
    this.cp = {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderControlPlane',
      metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1 },
      spec: {},
    };
  }

  private get spec(): CoderControlPlaneSpec {
    return (this.cp.spec ??= {});
  }

  inNamespace(namespace: string): this { this.cp.metadata.namespace = namespace; return this; }
  withUid(uid: string): this { this.cp.metadata.uid = uid; return this; }
  withSpec(spec: Partial<CoderControlPlaneSpec>): this { Object.assign(this.spec, structuredClone(spec)); return this; }
  withImage(image: string): this { this.spec.image = image; return this; }
  withReplicas(replicas: number): this { this.spec.replicas = replicas; return this; }
  withDatabase(name: string, key: string): this { this.spec.database = { connectionSecretRef: { name, key } }; return this; }
  withTls(...secretNames: string[]): this { this.spec.tls = { secretNames }; return this; }
  withCerts(...secrets: { name: string; key: string }[]): this { this.spec.certs = { secrets }; return this; }
  withExtraEnv(...env: V1EnvVar[]): this { this.spec.extraEnv = [...(this.spec.extraEnv ?? []), ...env]; return this; }
  withEnvFrom(...envFrom: V1EnvFromSource[]): this { this.spec.envFrom = envFrom; return this; }
  withExtraArgs(...args: string[]): this { this.spec.extraArgs = args; return this; }
  withEnvUseClusterAccessURL(on: boolean): this { this.spec.envUseClusterAccessURL = on; return this; }
  withService(service: CoderControlPlaneSpecService): this { this.spec.service = service; return this; }
  withServicePort(port: number): this { this.spec.service = { ...this.spec.service, port }; return this; }
  withServiceAccount(serviceAccount: CoderControlPlaneSpecServiceAccount): this { this.spec.serviceAccount = serviceAccount; return this; }
  withRbac(rbac: CoderControlPlaneSpecRbac): this { this.spec.rbac = { ...this.spec.rbac, ...rbac }; return this; }
  withWorkspaceNamespaces(...namespaces: string[]): this { return this.withRbac({ workspaceNamespaces: namespaces }); }
  withReadinessProbe(probe: CoderControlPlaneSpecLivenessProbe): this { this.spec.readinessProbe = probe; return this; }
  withLivenessProbe(probe: CoderControlPlaneSpecLivenessProbe): this { this.spec.livenessProbe = probe; return this; }
  withIngress(ingress: CoderControlPlaneSpecExposeIngress): this { this.spec.expose = { ingress }; return this; }
  withGateway(gateway: CoderControlPlaneSpecExposeGateway): this { this.spec.expose = { gateway }; return this; }
  withVolumes(...volumes: V1Volume[]): this { this.spec.volumes = volumes; return this; }
  withVolumeMounts(...volumeMounts: V1VolumeMount[]): this { this.spec.volumeMounts = volumeMounts; return this; }

  build(): CoderControlPlane {
    return structuredClone(this.cp);
  }
}

/** `aControlPlane('coder').inNamespace('coder').withDatabase('coder-db-app', 'uri').build()` */
export const aControlPlane = (name = 'coder'): ControlPlaneBuilder => new ControlPlaneBuilder(name);

export const envVar = (name: string, value: string): V1EnvVar => ({ name, value });

export function coderContainer(deployment: V1Deployment): V1Container {
  const container = deployment.spec?.template.spec?.containers[0];
  if (!container) throw new Error('the Deployment has no container');
  return container;
}

export const envNames = (deployment: V1Deployment): string[] => (coderContainer(deployment).env ?? []).map((e) => e.name);

export const envValue = (deployment: V1Deployment, name: string): V1EnvVar | undefined =>
  coderContainer(deployment).env?.find((e) => e.name === name);
