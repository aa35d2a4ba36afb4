// Deletion: the provisioner key this object created (status.provisionerKeyID) goes from Coder before the
// finalizer is removed; the children go by garbage collection. A key of the same name that this object did
// not record is never deleted. A control plane that is gone, being deleted or without operator access
// cannot be asked, so the finalizer is released with a Warning Event naming the key left behind. A failing
// Coder call is retried (with backoff): the key would otherwise stay valid in Coder.
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { resolveControlPlane } from '../../controlplane/access.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ProvisionerContext } from './context.ts';
import { keyName, namespaceOf, organizationName } from './desired/names.ts';
import { deleteRecordedKey } from './provisioner-key.ts';
import { keyCleanupFinalizer } from '../shared/finalizers.ts';

export async function finalizeProvisioner(ctx: ProvisionerContext, p: CoderProvisioner, { signal }: ReconcileContext): Promise<void> {
  if (!p.metadata.finalizers?.includes(keyCleanupFinalizer)) return;
  const cpName = p.status?.controlPlaneRefName || p.spec?.controlPlaneRef?.name?.trim();
  const keyID = p.status?.provisionerKeyID;
  const key = { organizationName: p.status?.organizationName || organizationName(p), keyName: p.status?.provisionerKeyName || keyName(p) };
  const record = (type: 'Normal' | 'Warning', reason: string, message: string) =>
    ctx.events.record(eventTarget(p), type, reason, 'Finalize', message);
  if (cpName && keyID) {
    const access = resolveControlPlane(ctx, ctx.caches, namespaceOf(p), { name: cpName });
    if (access.usable) {
      const deleted = await deleteRecordedKey(access.client, key.organizationName, keyID, signal).catch(async (err: unknown) => {
        signal.throwIfAborted();
        await record(
          'Warning',
          'ProvisionerKeyNotDeleted',
          `Provisioner key "${key.keyName}" could not be deleted from Coder, retrying before the object goes: ${(err as Error).message}`,
        );
        throw err;
      });
      if (deleted) await record('Normal', 'ProvisionerKeyDeleted', `Provisioner key "${deleted}" was deleted from Coder.`);
    } else {
      await record(
        'Warning',
        'ProvisionerKeyNotDeleted',
        `Provisioner key "${key.keyName}" in organization "${key.organizationName}" stays in Coder: ${access.message} Delete it with coder provisioner keys delete.`,
      );
    }
  } else if (p.status?.provisionerKeyName) {
    // Written by a version that recorded no id: the key of that name may be another's, so it stays.
    await record(
      'Warning',
      'ProvisionerKeyNotDeleted',
      `Provisioner key "${key.keyName}" in organization "${key.organizationName}" stays in Coder: this provisioner recorded no status.provisionerKeyID, so it cannot tell its key from another of that name. Delete it with coder provisioner keys delete ${key.keyName} --org ${key.organizationName} if nothing uses it.`,
    );
  }
  await ctx.writer.removeFinalizer(coderProvisionerResource, p, keyCleanupFinalizer);
}
