// The watches of a kind whose objects name a control plane and Secrets: indexes from
// `<namespace>/<control plane>` and `<namespace>/<Secret>` to the objects, so a control plane that gains
// operator access, or a Secret that is created, marked or changed, reconciles its objects at once.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { requestKey } from '../../runtime/controller.ts';
import type { Cache } from '../../runtime/cache.ts';

const controlPlaneIndex = 'control-plane-ref';
const secretIndex = 'secret-refs';

interface ReferencingObject {
  metadata: { name?: string; namespace?: string };
  spec?: { controlPlaneRef?: { name?: string } };
}

export interface ReferenceWatches {
  /** The objects that name a control plane, as queue keys. */
  fromControlPlane(cp: CoderControlPlane): string[];
  /** The objects that name a Secret, as queue keys. */
  fromSecret(secret: V1Secret): string[];
}

/** Adds the two indexes to `cache`; `secretNames` lists the Secret names an object's spec names. */
export function referenceWatches<T extends ReferencingObject>(cache: Cache<T>, secretNames: (obj: T) => string[]): ReferenceWatches {
  // An object stored without this schema (a list that is a string) names no Secret here; its reconcile
  // reports the spec as invalid.
  const namesOf = (obj: T): string[] => {
    try {
      return secretNames(obj).filter((name) => typeof name === 'string');
    } catch {
      return [];
    }
  };
  cache.addIndex(controlPlaneIndex, (obj) => {
    const name = obj.spec?.controlPlaneRef?.name;
    return name ? [`${obj.metadata.namespace}/${name}`] : [];
  });
  cache.addIndex(secretIndex, (obj) => [...new Set(namesOf(obj))].map((name) => `${obj.metadata.namespace}/${name}`));
  const keys = (objs: T[]) => objs.map((o) => requestKey(o.metadata.namespace, o.metadata.name!));
  return {
    fromControlPlane: (cp) => keys(cache.byIndex(controlPlaneIndex, `${cp.metadata.namespace}/${cp.metadata.name}`)),
    fromSecret: (secret) => keys(cache.byIndex(secretIndex, `${secret.metadata?.namespace}/${secret.metadata?.name}`)),
  };
}
