// When a provisioner is Ready (the summary kubectl wait and kstatus read).
import { CoderProvisionerConditions as C, type CoderProvisionerConditionChanges } from '../../../generated/types/coderprovisioner.ts';
import type { Condition } from '../../runtime/conditions.ts';
import type { ReadyRuleOf } from '../shared/reconcile/readiness.ts';

const R = C.Ready.reasons;

/** Only the user (or a Coder admin, for a key name taken) can move these on; operator access and the control plane may still come by themselves. */
function userMustAct(condition: Condition): boolean {
  if (condition.status !== 'False') return false;
  if (condition.type === C.SpecValid.type || condition.type === C.CredentialSecretReady.type) return true;
  if (condition.type === C.ExternalProvisionersEntitled.type)
    return condition.reason === C.ExternalProvisionersEntitled.reasons.NotEntitled;
  if (condition.type === C.ProvisionerKeyReady.type) return condition.reason === C.ProvisionerKeyReady.reasons.KeyNameTaken;
  return condition.type === C.DeploymentReady.type && condition.reason === C.DeploymentReady.reasons.ObjectNotOwned;
}

export const provisionerReadyRule: ReadyRuleOf<CoderProvisionerConditionChanges> = {
  requirements: [
    { type: C.SpecValid.type, reason: R.InvalidSpec, optional: true },
    { type: C.ControlPlaneReady.type, reason: R.ControlPlaneNotReady },
    { type: C.OperatorAccessReady.type, reason: R.OperatorAccessNotReady },
    { type: C.ExternalProvisionersEntitled.type, reason: R.NotEntitled },
    { type: C.CredentialSecretReady.type, reason: R.CredentialSecretNotReady },
    {
      type: C.ProvisionerKeyReady.type,
      reason: R.ProvisionerKeyNotReady,
      reasonsByCause: { [C.ProvisionerKeyReady.reasons.KeyNameTaken]: R.KeyNameTaken },
    },
    { type: C.ProvisionerKeySecretReady.type, reason: R.ProvisionerKeySecretNotReady },
    { type: C.DeploymentReady.type, reason: R.DeploymentNotReady },
  ],
  readyReason: R.Available,
  readyMessage: 'The provisioner key is in Coder, its Secret holds it, and provisioner pods are ready.',
  userMustAct,
};
