// Before starting: is the CRD of every reconciled kind served? Asks discovery, which every
// authenticated user may read, so the operator needs no permission on CRDs.
import { isNotFound, type KubeHttp } from '../runtime/kube-http.ts';
import type { ResourceKind } from '../runtime/resource.ts';

interface APIResourceList {
  resources: { name: string }[];
}

/** The CRD names (plural.group) that the API server does not serve. */
export async function missingCrds(http: KubeHttp, resources: readonly ResourceKind[]): Promise<string[]> {
  const served = new Map<string, Set<string>>();
  for (const apiVersion of new Set(resources.map((r) => r.apiVersion))) {
    try {
      const list = await http.json<APIResourceList>('GET', `/apis/${apiVersion}`);
      served.set(apiVersion, new Set(list.resources.map((r) => r.name)));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      served.set(apiVersion, new Set());
    }
  }
  return resources.filter((r) => !served.get(r.apiVersion)?.has(r.plural)).map((r) => `${r.plural}.${r.group}`);
}

export function missingCrdsMessage(missing: string[]): string {
  return `the CustomResourceDefinitions of these kinds are not installed: ${missing.join(', ')}.\n` +
    'Apply the CRDs (and RBAC) of this version first: kubectl apply -f config/crd/bases/ -f config/rbac/';
}
