// Deletion (reference §2.8): the provisioner key goes from Coder before the finalizer is removed; the
// children go by garbage collection. A control plane that is gone, being deleted or without operator
// access cannot be asked, so the finalizer is released with a Warning Event naming the key left behind.
// A failing Coder call is retried (with backoff): the key would otherwise stay valid in Coder.
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { resolveControlPlane } from '../shared/control-plane-ref.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ProvisionerContext } from './context.ts';
import { keyName, maxKeyNameLength, namespaceOf, organizationName } from './desired/names.ts';
import { deleteKey } from './provisioner-key.ts';

export const keyCleanupFinalizer = 'coder.com/provisioner-key-cleanup';

export async function finalizeProvisioner(ctx: ProvisionerContext, p: CoderProvisioner, { signal }: ReconcileContext): Promise<void> {
  if (!p.metadata.finalizers?.includes(keyCleanupFinalizer)) return;
  const cpName = p.status?.controlPlaneRefName || p.spec?.controlPlaneRef?.name?.trim();
  const key = { organizationName: p.status?.organizationName || organizationName(p), keyName: p.status?.provisionerKeyName || keyName(p) };
  // Nothing was ever created for an object whose spec names no control plane or an impossible key name.
  if (cpName && key.keyName.length <= maxKeyNameLength) {
    const access = resolveControlPlane(ctx, ctx.caches, namespaceOf(p), { name: cpName });
    if (access.usable) {
      const deleted = await deleteKey(access.client, key, signal).catch(async (err: unknown) => {
        signal.throwIfAborted();
        const message = `Provisioner key "${key.keyName}" could not be deleted from Coder, retrying before the object goes: ${(err as Error).message}`;
        await ctx.events.record(eventTarget(p), 'Warning', 'ProvisionerKeyNotDeleted', 'Finalize', message);
        throw err;
      });
      if (deleted) {
        await ctx.events.record(
          eventTarget(p),
          'Normal',
          'ProvisionerKeyDeleted',
          'Finalize',
          `Provisioner key "${key.keyName}" was deleted from Coder.`,
        );
      }
    } else if (p.status?.provisionerKeyName) {
      await ctx.events.record(
        eventTarget(p),
        'Warning',
        'ProvisionerKeyNotDeleted',
        'Finalize',
        `Provisioner key "${key.keyName}" in organization "${key.organizationName}" stays in Coder: ${access.message} Delete it with coder provisioner keys delete.`,
      );
    }
  }
  await ctx.writer.removeFinalizer(coderProvisionerResource, p, keyCleanupFinalizer);
}
