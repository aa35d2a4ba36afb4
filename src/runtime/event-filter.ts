// Which cache events are worth a reconcile. By default every add, update and delete enqueues; a filter
// drops the updates a reconcile would make nothing of (its own status and finalizer writes, a Kubernetes
// controller's bookkeeping on a child), so an object goes from create to Ready in as few reconciles as
// the changes that matter to it. Deletes always enqueue.
import { jsonEqual } from './equality.ts';
import type { KubeObject } from './informer.ts';

export interface EventFilter<T extends KubeObject> {
  /** Whether a newly seen object enqueues (default true). */
  create?: boolean;
  /** Whether an update enqueues (default: every update). */
  update?(oldObj: T, newObj: T): boolean;
}

/** Annotations Kubernetes' own controllers keep on objects (deployment.kubernetes.io/revision, ...). */
export const isKubernetesAnnotation = (key: string): boolean => /(^|\.)kubernetes\.io\//.test(key);

/** The object without what changes on every write or belongs to others: resourceVersion, managedFields, status. */
function content(obj: KubeObject, ignoreAnnotation: (key: string) => boolean, ignoreFinalizers: boolean): unknown {
  const { status: _status, metadata = {}, ...rest } = obj as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, annotations, finalizers, ...meta } = metadata;
  const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !ignoreAnnotation(key)));
  return { ...rest, metadata: { ...meta, annotations: kept, ...(ignoreFinalizers ? {} : { finalizers: finalizers ?? [] }) } };
}

/**
 * An update that changes more than status, resourceVersion and managedFields (and, when
 * `ignoreAnnotation` says so, annotations others keep): what an owned child's drift looks like.
 */
export function changedBeyondStatus<T extends KubeObject>(
  oldObj: T,
  newObj: T,
  ignoreAnnotation: (key: string) => boolean = () => false,
): boolean {
  return !jsonEqual(content(oldObj, ignoreAnnotation, false), content(newObj, ignoreAnnotation, false));
}

/**
 * For a controller's own kind: an update that changes more than the status, or than the finalizers
 * while `finalizer` stays on (the reconcile's own writes); losing `finalizer` counts, so it is put back.
 */
export function primaryChanged<T extends KubeObject>(finalizer?: string): (oldObj: T, newObj: T) => boolean {
  return (oldObj, newObj) => {
    const has = (obj: T) => finalizer !== undefined && (obj.metadata?.finalizers ?? []).includes(finalizer);
    const lost = has(oldObj) && !has(newObj);
    const otherFinalizers = (obj: T) => (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
    if (lost || !jsonEqual(otherFinalizers(oldObj), otherFinalizers(newObj))) return true;
    const none = () => false;
    return !jsonEqual(content(oldObj, none, true), content(newObj, none, true));
  };
}
