// The namespaces an all-namespaces list of workspaces or templates covers: those holding a
// CoderControlPlane that may serve it (serving-control-plane.ts), sorted. Read with the operator's credentials after the
// caller was allowed to list the aggregated resource across all namespaces.
import type { CoderControlPlaneList } from '../../../generated/types/codercontrolplane.ts';
import { mayServeNamespace } from '../../controlplane/serving-control-plane.ts';
import { resourcePath, type ToolContext } from '../tool.ts';

export async function controlPlaneNamespaces(ctx: ToolContext): Promise<string[]> {
  const list = await ctx.kube.json<CoderControlPlaneList>('GET', resourcePath('coder.com/v1alpha1', 'codercontrolplanes'));
  return [...new Set(list.items.filter(mayServeNamespace).map((cp) => cp.metadata.namespace!))].sort();
}
