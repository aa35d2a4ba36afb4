// When a control plane is Ready (the summary kubectl wait and kstatus read).
import { CoderControlPlaneConditions as C, type CoderControlPlaneConditionChanges } from '../../../generated/types/codercontrolplane.ts';
import type { Condition } from '../../runtime/conditions.ts';
import type { ReadyRuleOf } from '../shared/reconcile/readiness.ts';

const R = C.Ready.reasons;

// Operator access and the license have their own conditions: a control plane on the built-in database
// serves Coder without operator access, and `kubectl wait` must not hang on it.
const userMustAct = new Set<string>([
  C.SpecValid.type,
  C.DatabaseSecretResolved.type,
  C.ChildrenOwned.type,
  C.Exposed.type,
  C.WorkspaceRBACReady.type,
]);

export const controlPlaneReadyRule: ReadyRuleOf<CoderControlPlaneConditionChanges> = {
  requirements: [
    { type: C.SpecValid.type, reason: R.InvalidSpec, optional: true },
    { type: C.DatabaseSecretResolved.type, reason: R.DatabaseSecretNotResolved, optional: true },
    { type: C.ChildrenOwned.type, reason: R.ChildrenNotOwned, optional: true },
    { type: C.Exposed.type, reason: R.NotExposed, optional: true },
    { type: C.WorkspaceRBACReady.type, reason: R.WorkspaceRBACNotReady, optional: true },
    { type: C.DeploymentReady.type, reason: R.DeploymentNotReady },
  ],
  readyReason: R.Available,
  readyMessage: 'Coder serves, and everything the spec asks for is in place.',
  userMustAct: (condition: Condition) => condition.status === 'False' && userMustAct.has(condition.type),
};
