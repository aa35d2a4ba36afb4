// Before starting: is the CRD of every reconciled kind served? Asks discovery, which every
// authenticated user may read, so the operator needs no permission on CRDs.
import type { ResourceKind } from '../runtime/resource.ts';
import type { Writer } from '../runtime/writer.ts';

/** The CRD names (plural.group) that the API server does not serve. */
export async function missingCrds(writer: Writer, resources: readonly ResourceKind[]): Promise<string[]> {
  const missing: string[] = [];
  for (const r of resources) if (!(await writer.served(r))) missing.push(`${r.plural}.${r.group}`);
  return missing;
}

export function missingCrdsMessage(missing: string[]): string {
  return (
    `the CustomResourceDefinitions of these kinds are not installed: ${missing.join(', ')}; ` +
    'apply the CRDs (and RBAC) of this version first: kubectl apply -f config/crd/bases/ -f config/rbac/'
  );
}
