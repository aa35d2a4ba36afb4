// Whether the provisioner key must be (re)created, and doing it: a key is created when the key Secret holds
// none or the status does not describe one, and rotated when the organization, key name, tags or control
// plane changed. Otherwise Coder is not called. Only the key whose id the status records is ever rotated
// or deleted; a key of the wanted name with another id is reported as KeyNameTaken. The step records the
// key in the status fields (the next reconcile decides from them) and stops the reconcile while there is none.
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { CoderClient } from '../../coder/client.ts';
import { CoderApiError } from '../../coder/errors.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ProvisionerContext } from './context.ts';
import { keyName, keySecretRef, organizationName, tagsHash, tagsOf } from './desired/names.ts';
import { createKey, deleteRecordedKey, KeyNameTakenError } from './provisioner-key.ts';
import type { ProvisionerOutcome } from './status.ts';

const keyRetryMs = 30_000;
/** Someone else's key of that name goes only when a Coder admin deletes it, which no watch shows. */
const keyNameTakenRetryMs = 120_000;

/** The status fields that describe the key last applied. */
export type AppliedKey = Pick<
  CoderProvisionerStatus,
  'organizationID' | 'organizationName' | 'provisionerKeyID' | 'provisionerKeyName' | 'tagsHash' | 'controlPlaneRefName' | 'controlPlaneURL'
>;

type ProvisionerKeyReady = ConditionOf<typeof C.ProvisionerKeyReady>;

export type KeyStepResult =
  /** `created` when Coder made a new key, which the Secret must now receive. */
  | {
      ok: true;
      created: boolean;
      key: string;
      applied: AppliedKey;
      condition: ProvisionerKeyReady;
      event?: { reason: string; message: string };
    }
  | { ok: false; condition: ProvisionerKeyReady; applied?: AppliedKey };

/** The fields that, when they change, make the key in Coder another one. */
function desiredIdentity(p: CoderProvisioner, controlPlaneName: string) {
  return {
    organizationName: organizationName(p),
    provisionerKeyName: keyName(p),
    tagsHash: tagsHash(tagsOf(p)),
    controlPlaneRefName: controlPlaneName,
  };
}

/** The fields of the status that differ from the spec (a field counts only when the status has a value). */
export function keyDrift(p: CoderProvisioner, controlPlaneName: string): string[] {
  const desired = desiredIdentity(p, controlPlaneName);
  return (Object.keys(desired) as (keyof typeof desired)[]).filter((field) => {
    const applied = p.status?.[field];
    return applied !== undefined && applied !== '' && applied !== desired[field];
  });
}

function complete(status: CoderProvisionerStatus | undefined): boolean {
  return Boolean(
    status?.organizationName && status.provisionerKeyName && status.provisionerKeyID && status.tagsHash && status.controlPlaneRefName,
  );
}

const ready = (message: string): ProvisionerKeyReady => ({
  type: C.ProvisionerKeyReady.type,
  status: 'True',
  reason: C.ProvisionerKeyReady.reasons.ProvisionerKeyReady,
  message,
});

/** Whether Coder must be called: the key Secret holds no key, the status describes no key, or the key's identity changed. */
export function keyCallNeeded(p: CoderProvisioner, controlPlaneName: string, secretKey: string): boolean {
  return keyDrift(p, controlPlaneName).length > 0 || secretKey === '' || !complete(p.status);
}

export async function ensureProvisionerKey(
  p: CoderProvisioner,
  cp: CoderControlPlane,
  client: CoderClient,
  secretKey: string,
  logger: Logger,
  signal?: AbortSignal,
): Promise<KeyStepResult> {
  const controlPlaneName = cp.metadata.name!;
  const desired = desiredIdentity(p, controlPlaneName);
  const drift = keyDrift(p, controlPlaneName);
  if (!keyCallNeeded(p, controlPlaneName, secretKey)) {
    return {
      ok: true,
      created: false,
      key: secretKey,
      applied: { ...pickApplied(p.status!), controlPlaneURL: cp.status?.url },
      condition: ready(`Provisioner key "${desired.provisionerKeyName}" exists in Coder and its Secret holds it.`),
    };
  }
  const recordedID = p.status?.provisionerKeyID || undefined;
  try {
    // Under the same name createKey rotates the recorded key itself.
    const created = await createKey(
      client,
      { organizationName: desired.organizationName, keyName: desired.provisionerKeyName },
      tagsOf(p),
      recordedID,
      signal,
    );
    const moved = drift.includes('organizationName') || drift.includes('provisionerKeyName');
    if (moved && recordedID && p.status?.controlPlaneRefName === controlPlaneName) {
      // After the create, so that a name taken leaves the old key (and its daemons) working. Best effort:
      // the old key stops working either way once its daemons get the new one.
      const oldOrganization = p.status.organizationName || desired.organizationName;
      await deleteRecordedKey(client, oldOrganization, recordedID, signal).catch((err: unknown) => {
        signal?.throwIfAborted();
        logger.warn(
          { err: (err as Error).message, keyName: p.status?.provisionerKeyName },
          'could not delete the previous provisioner key',
        );
      });
    }
    const applied: AppliedKey = {
      organizationID: created.organizationID,
      organizationName: desired.organizationName,
      provisionerKeyID: created.keyID,
      // As asked: Coder may store the name in lower case, which must not read as a change next time.
      provisionerKeyName: desired.provisionerKeyName,
      tagsHash: desired.tagsHash,
      controlPlaneRefName: controlPlaneName,
      controlPlaneURL: cp.status?.url,
    };
    const why = drift.length
      ? `${drift.join(', ')} changed`
      : secretKey === ''
        ? 'the key Secret held no key'
        : 'the status described no key';
    const verb = drift.length || created.rotated ? 'rotated' : 'created';
    return {
      ok: true,
      created: true,
      key: created.key,
      applied,
      condition: ready(`Provisioner key "${created.keyName}" was ${verb} in Coder (${why}).`),
      event: {
        reason: verb === 'rotated' ? 'ProvisionerKeyRotated' : 'ProvisionerKeyCreated',
        message: `Provisioner key "${created.keyName}" was ${verb} in Coder (${why}).`,
      },
    };
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof KeyNameTakenError) {
      return {
        ok: false,
        condition: {
          type: C.ProvisionerKeyReady.type,
          status: 'False',
          reason: C.ProvisionerKeyReady.reasons.KeyNameTaken,
          message: err.message,
        },
      };
    }
    const limited = err instanceof CoderApiError && err.status === 429;
    return {
      ok: false,
      condition: {
        type: C.ProvisionerKeyReady.type,
        status: 'False',
        reason: limited ? C.ProvisionerKeyReady.reasons.RateLimited : C.ProvisionerKeyReady.reasons.ProvisionerKeyFailed,
        message: limited
          ? 'Coder API rate limited while reconciling provisioner key'
          : `Provisioner key "${desired.provisionerKeyName}" could not be created in organization "${desired.organizationName}": ${(err as Error).message}`,
      },
    };
  }
}

function pickApplied(s: CoderProvisionerStatus): AppliedKey {
  const { organizationID, organizationName, provisionerKeyID, provisionerKeyName, tagsHash, controlPlaneRefName, controlPlaneURL } = s;
  return { organizationID, organizationName, provisionerKeyID, provisionerKeyName, tagsHash, controlPlaneRefName, controlPlaneURL };
}

/** The key the children are built with; `created` when Coder made it in this reconcile (the Secret must receive it). */
export interface KeyInUse {
  created: boolean;
  key: string;
  keyID: string;
}

/** ProvisionerKeyReady and the status fields of the key in use, with a Normal Event when Coder made a new one. */
export async function provisionerKeyStep(
  ctx: ProvisionerContext,
  p: CoderProvisioner,
  cp: CoderControlPlane,
  client: CoderClient,
  secretKey: string,
  { logger, signal }: ReconcileContext,
): Promise<ProvisionerOutcome & ({ stop: true } | ({ stop?: undefined } & KeyInUse))> {
  const key = await ensureProvisionerKey(p, cp, client, secretKey, logger, signal);
  const conditions = { [C.ProvisionerKeyReady.type]: key.condition };
  if (!key.ok) {
    const requeueAfterMs = key.condition.reason === C.ProvisionerKeyReady.reasons.KeyNameTaken ? keyNameTakenRetryMs : keyRetryMs;
    return { conditions, requeueAfterMs, stop: true };
  }
  if (key.event) await ctx.events.record(eventTarget(p), 'Normal', key.event.reason, 'EnsureProvisionerKey', key.event.message);
  const ref = keySecretRef(p);
  return {
    conditions,
    status: { ...key.applied, secretRef: { name: ref.name, key: ref.key } },
    // Only the status tells the next reconcile (or the next leader) that a new key is this provisioner's.
    durable: key.created,
    created: key.created,
    key: key.key,
    keyID: key.applied.provisionerKeyID ?? '',
  };
}
