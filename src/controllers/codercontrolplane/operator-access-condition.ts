// The OperatorAccessReady condition: decided here, from what the operator-access step ran into.
import { CoderControlPlaneConditions } from '../../../generated/types/codercontrolplane.ts';
import { OperatorAccessError } from '../../coder/operator-access/errors.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';

const OperatorAccessReady = CoderControlPlaneConditions.OperatorAccessReady;
const { type, reasons } = OperatorAccessReady;
export const operatorAccessConditionType = type;

/** OperatorAccessReady. */
export type AccessCondition = ConditionOf<typeof OperatorAccessReady>;

/** The longest text of a Kubernetes error copied into a message (an admission webhook may say a lot). */
const maxCauseLength = 300;

const condition = (reason: AccessCondition['reason'], message: string, status: 'True' | 'False' = 'False'): AccessCondition => ({
  type,
  status,
  reason,
  message,
});

/** `roles`: the Coder roles the user holds, and why (operator-roles.ts describeChoice). */
export function accessReady(secretName: string, roles: string): AccessCondition {
  return condition(
    reasons.Ready,
    `The coder-k8s-operator user has a live token, kept in Secret "${secretName}"; its Coder roles: ${roles}.`,
    'True',
  );
}

export function databaseURLUnavailable(cp: { spec?: { database?: unknown } }): AccessCondition {
  return condition(
    reasons.DatabaseURLUnavailable,
    cp.spec?.database
      ? 'The database URL could not be read: see the DatabaseSecretResolved condition.'
      : 'No database URL: set spec.database.connectionSecretRef, or one CODER_PG_CONNECTION_URL entry in spec.extraEnv ' +
          '(a value or a secretKeyRef to an existing Secret key).',
  );
}

export function tokenSecretNotOwned(): AccessCondition {
  return condition(reasons.TokenSecretNotOwned, 'The operator token Secret is not usable: see the OperatorTokenSecretOwned condition.');
}

/** The bootstrap's own failures: OperatorAccessError messages are safe to show by construction. */
export function accessFailed(err: unknown): AccessCondition {
  if (!(err instanceof OperatorAccessError))
    return condition(reasons.Failed, 'Operator access failed for an unexpected reason; retried every 30 s.');
  const reason = err.reason === 'Invalid' ? reasons.InvalidDatabaseURL : (reasons[err.reason] ?? reasons.Failed);
  return condition(reason, `Operator access: ${err.message}.`);
}

/** The token Secret could not be written, so the new token was rolled back in Coder's database. */
export function tokenSecretWriteFailed(secretName: string, err: unknown): AccessCondition {
  const raw = err instanceof Error ? err.message : String(err);
  const cause = raw.length > maxCauseLength ? `${raw.slice(0, maxCauseLength)}…` : raw;
  return condition(
    reasons.TokenSecretWriteFailed,
    `Writing the operator token Secret "${secretName}" failed, so the new token was not kept in Coder's database; retried every 30 s: ${cause}`,
  );
}
