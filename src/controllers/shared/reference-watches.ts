// The watches every kind makes on what its objects name: indexes from `<namespace>/<control plane>` and
// `<namespace>/<Secret>` (and `<namespace>/<ConfigMap>`) to the objects, so a control plane that gains operator
// access, or a Secret or ConfigMap that is created, marked, changed or deleted, reconciles its objects at once
// instead of at their next poll.
import type { V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { operatorTokenLabel } from '../../controlplane/operator-token-marks.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { ControllerBuilder } from '../../runtime/controller-builder.ts';
import { requestKey } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { builtinResources, metadataOf } from '../../runtime/resource.ts';

const controlPlaneIndex = 'control-plane-refs';
const secretIndex = 'secret-refs';
const configMapIndex = 'configmap-refs';

interface ReferencingObject {
  metadata: { name?: string; namespace?: string };
}

export interface References<T> {
  /** The control planes, in the object's namespace, it uses. */
  controlPlanes?(obj: T): unknown[];
  /** The Secrets, in the object's namespace, it reads, adopts or hands to its pods. */
  secrets?(obj: T): unknown[];
  /** Whether a control plane's operator token Secret also reconciles the objects that use the control plane. */
  operatorTokens?: boolean;
  /**
   * The ConfigMaps, in the object's namespace, whose content it reads. They are watched as metadata only (a
   * change still comes as a new resourceVersion), so the reconcile reads the one it needs live.
   */
  configMaps?(obj: T): unknown[];
}

/**
 * Adds to `cache` an index of `names`, blank and non-string ones skipped. A spec the function cannot read (one
 * stored without this schema) indexes nothing; the informer logs it, and the reconcile reports the spec.
 */
function addNameIndex<T extends ReferencingObject>(cache: Cache<T>, index: string, names: (obj: T) => unknown[]): void {
  cache.addIndex(index, (obj) => {
    const valid = names(obj)
      .filter((n): n is string => typeof n === 'string' && n.trim() !== '')
      .map((n) => n.trim());
    return [...new Set(valid)].map((name) => `${obj.metadata.namespace}/${name}`);
  });
}

/** Indexes `cache` by what its objects name and adds the watches that map a control plane or a Secret to them. */
export function watchReferences<T extends ReferencingObject>(
  builder: ControllerBuilder,
  cache: Cache<T>,
  refs: References<T>,
): ControllerBuilder {
  const keys = (index: string, namespace: string | undefined, name: string | undefined) =>
    cache.byIndex(index, `${namespace}/${name}`).map((o) => requestKey(o.metadata.namespace, o.metadata.name!));
  if (refs.controlPlanes) {
    addNameIndex(cache, controlPlaneIndex, refs.controlPlanes);
    builder.watches<CoderControlPlane>(coderControlPlaneResource, (cp) => keys(controlPlaneIndex, cp.metadata.namespace, cp.metadata.name));
  }
  if (refs.secrets) {
    addNameIndex(cache, secretIndex, refs.secrets);
    builder.watches<V1Secret>(builtinResources.secret, (secret) => {
      const { namespace, name } = secret.metadata ?? {};
      const found = keys(secretIndex, namespace, name);
      if (refs.operatorTokens && refs.controlPlanes && secret.metadata?.labels?.[operatorTokenLabel] === 'true') {
        const owner = secret.metadata.ownerReferences?.find((r) => r.controller && r.kind === coderControlPlaneResource.kind);
        if (owner) found.push(...keys(controlPlaneIndex, namespace, owner.name));
      }
      return found;
    });
  }
  if (refs.configMaps) {
    addNameIndex(cache, configMapIndex, refs.configMaps);
    builder.watches<KubeObject>(metadataOf(builtinResources.configMap), (cm) =>
      keys(configMapIndex, cm.metadata?.namespace, cm.metadata?.name),
    );
  }
  return builder;
}
