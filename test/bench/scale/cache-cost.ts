// What one cached object costs in V8's heap, as the operator's caches keep it: the API server's JSON parsed,
// without metadata.managedFields (informer.ts). Measured in the bench's own process, which runs the same V8,
// by the heap in use before and after holding every object of a kind, each after a full garbage collection.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubeObject } from '../../../src/runtime/informer.ts';
import type { KubeHttp } from '../../../src/runtime/kube-http.ts';
import { collectionPath, type ResourceKind } from '../../../src/runtime/resource.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** `Deployment 2.8 KiB (1000)`: the heap each object of `resource` takes, over all of them in the cluster. */
export async function heapPerObject(admin: KubeHttp, resource: ResourceKind): Promise<string> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const { items } = await admin.json<{ items: KubeObject[] }>('GET', collectionPath(resource));
  for (const item of items) delete item.metadata?.managedFields;
  gc();
  const held = process.memoryUsage().heapUsed - before;
  return `${resource.kind} ${(held / items.length / 1024).toFixed(1)} KiB (${items.length})`;
}
