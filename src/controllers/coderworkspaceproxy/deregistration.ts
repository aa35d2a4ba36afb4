// Deletion: the proxy the operator registered is deregistered in Coder, then the finalizer goes. When Coder
// cannot be reached with the proxy's credentials any more (control plane gone, operator access off, its
// credentials Secret refused), deletion is not held up forever: a Warning Event names the proxy left in Coder.
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import type { CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { isCoderNotFound } from '../../coder/error-predicates.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ProxyContext } from './context.ts';
import { coderAccess } from './coder-access.ts';
import { checkCredentials } from './credentials.ts';
import { tokenSecretName } from './desired/names.ts';
import { tokenSecretState } from './token-secret.ts';
import { deregistrationFinalizer } from '../shared/finalizers.ts';

export async function deregister(ctx: ProxyContext, proxy: CoderWorkspaceProxy, { signal }: ReconcileContext): Promise<void> {
  if (!proxy.metadata.finalizers?.includes(deregistrationFinalizer)) return;
  const id = proxy.status?.proxyID;
  const name = proxy.status?.proxyName ?? id;
  if (id) {
    const secretNamed = (secret: string) => ctx.caches.secrets.get(proxy.metadata.namespace, secret);
    const credentials = checkCredentials(proxy, tokenSecretState(proxy, secretNamed(tokenSecretName(proxy))), secretNamed);
    const access = coderAccess(ctx, proxy, credentials.bootstrapToken);
    if (access.client) {
      try {
        await access.client.request('DELETE', '/api/v2/workspaceproxies/{workspaceProxy}', { params: { workspaceProxy: id }, signal });
        await ctx.events.record(
          eventTarget(proxy),
          'Normal',
          'ProxyDeregistered',
          'DeregisterProxy',
          `Deregistered workspace proxy "${name}" in Coder.`,
        );
      } catch (err) {
        if (!isCoderNotFound(err)) throw err;
      }
    } else {
      const why = Object.values(access.conditions ?? {}).find((c) => c?.status === 'False')?.message ?? credentials.condition.message;
      await ctx.events.record(
        eventTarget(proxy),
        'Warning',
        'DeregistrationSkipped',
        'DeregisterProxy',
        `Workspace proxy "${name}" stays registered in Coder, because Coder cannot be reached with this proxy's credentials: ${why} Delete it in Coder by hand.`,
      );
    }
  }
  await ctx.writer.removeFinalizer(coderWorkspaceProxyResource, proxy, deregistrationFinalizer);
}
