// --selector is checked by the API server itself at startup: a selector it refuses would otherwise only
// show as informers failing over and over.
import { errorCode, type KubeHttp, type KubeApiError } from '../runtime/kube-http.ts';
import { collectionPath, type ResourceKind } from '../runtime/resource.ts';
import { StartupError } from '../runtime/startup-error.ts';

export async function checkShardSelector(http: KubeHttp, resource: ResourceKind, selector: string): Promise<void> {
  try {
    await http.json('GET', collectionPath(resource), { query: { labelSelector: selector, limit: 1 } });
  } catch (err) {
    if (errorCode(err) !== 400) throw err;
    const reason = (err as KubeApiError).status.message ?? 'not a label selector';
    throw new StartupError(`--selector=${selector}: the API server refuses it (${reason}); give a label selector such as shard=a`);
  }
}
