// The object an Event is about, taken from the reconciled object itself.
import type { EventTarget } from '../../runtime/events.ts';
import type { KubeObject } from '../../runtime/informer.ts';

export function eventTarget(obj: KubeObject): EventTarget {
  const { name, namespace, uid, resourceVersion } = obj.metadata ?? {};
  if (!obj.apiVersion || !obj.kind || !name || !uid) throw new Error('an Event needs an object with apiVersion, kind, name and uid');
  return { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace: namespace ?? '', uid, resourceVersion };
}
