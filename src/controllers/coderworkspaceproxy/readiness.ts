// When a workspace proxy is Ready (the summary kubectl wait and kstatus read).
import {
  CoderWorkspaceProxyConditions as C,
  type CoderWorkspaceProxyConditionChanges,
} from '../../../generated/types/coderworkspaceproxy.ts';
import type { Condition } from '../../runtime/conditions.ts';
import type { ReadyRuleOf } from '../shared/reconcile/readiness.ts';

const R = C.Ready.reasons;

// A control plane that is missing or without operator access may be on its way; only these wait for the user.
const userMustAct = new Set<string>([C.SpecValid.type, C.CredentialSecretReady.type, C.ChildrenOwned.type]);
const nameTaken = (condition: Condition) =>
  condition.type === C.ProxyRegistered.type && condition.reason === C.ProxyRegistered.reasons.ProxyNameTaken;

export const workspaceProxyReadyRule: ReadyRuleOf<CoderWorkspaceProxyConditionChanges> = {
  requirements: [
    { type: C.SpecValid.type, reason: R.InvalidSpec, optional: true },
    { type: C.CredentialSecretReady.type, reason: R.CredentialSecretNotReady, optional: true },
    { type: C.ControlPlaneReady.type, reason: R.ControlPlaneNotReady, optional: true },
    { type: C.OperatorAccessReady.type, reason: R.OperatorAccessNotReady, optional: true },
    {
      type: C.ProxyRegistered.type,
      reason: R.NotRegistered,
      optional: true,
      reasonsByCause: { [C.ProxyRegistered.reasons.ProxyNameTaken]: R.ProxyNameTaken },
    },
    { type: C.ChildrenOwned.type, reason: R.ChildrenNotOwned, optional: true },
    { type: C.DeploymentReady.type, reason: R.DeploymentNotReady },
  ],
  readyReason: R.Available,
  readyMessage: 'A proxy pod is ready, and everything the spec asks for is in place.',
  userMustAct: (condition: Condition) => condition.status === 'False' && (userMustAct.has(condition.type) || nameTaken(condition)),
};
