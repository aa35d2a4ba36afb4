// spec.database.connectionSecretRef → the DatabaseSecretResolved condition (the table in docs/how-to/deploy-controller.md).
// Pure: it is handed the Secret (or its absence) and never puts the value, or any part of it, in a message.
import type { V1Secret } from '@kubernetes/client-node';
import { CoderControlPlaneConditions } from '../../../generated/types/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import { databaseExtraEnvConflictMessage, pgConnectionUrlEnv } from './desired/env.ts';

const DatabaseSecretResolved = CoderControlPlaneConditions.DatabaseSecretResolved;
const { type, reasons } = DatabaseSecretResolved;
type DatabaseSecretCondition = ConditionOf<typeof DatabaseSecretResolved>;
export type DatabaseSecretResult =
  { condition: DatabaseSecretCondition; url?: undefined } | { condition: DatabaseSecretCondition; url: string };

/** True when spec.database and an extraEnv CODER_PG_CONNECTION_URL are both set (admission should have refused it). */
export function hasConflictingDatabaseConfig(cp: CoderControlPlane): boolean {
  return Boolean(cp.spec?.database) && (cp.spec?.extraEnv ?? []).some((e) => e.name === pgConnectionUrlEnv);
}

export function conflictingConfigurationCondition(): DatabaseSecretCondition {
  return { type, status: 'False', reason: reasons.ConflictingConfiguration, message: databaseExtraEnvConflictMessage };
}

/**
 * lib/pq and Coder read only exact lower-case postgres:// and postgresql:// URLs. The value is taken
 * as it is: WHATWG URL parsing would silently drop tabs, newlines and edge spaces, so control
 * characters and spaces are refused first.
 */
export function isPostgresURL(value: string): boolean {
  if (!value.startsWith('postgres://') && !value.startsWith('postgresql://')) return false;
  if (/[\u0000-\u0020\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.host !== '' || url.pathname !== '';
  } catch {
    return false;
  }
}

/** The condition for the Secret named by spec.database, and the URL when it resolves. */
export function resolveDatabaseSecret(cp: CoderControlPlane, secret: V1Secret | undefined): DatabaseSecretResult {
  const ref = cp.spec!.database!.connectionSecretRef;
  const namespace = cp.metadata.namespace ?? '';
  const condition = (
    reason: DatabaseSecretCondition['reason'],
    message: string,
    status: 'True' | 'False' = 'False',
  ): DatabaseSecretCondition => ({
    type,
    status,
    reason,
    message,
  });
  const key = ref.key ?? '';
  if (!secret) {
    return {
      condition: condition(reasons.SecretNotFound, `Secret "${ref.name}" (key "${key}") was not found in namespace "${namespace}".`),
    };
  }
  const value = secretValue(secret, key);
  if (value === undefined) {
    return { condition: condition(reasons.KeyNotFound, `Secret "${ref.name}" does not contain key "${key}".`) };
  }
  if (value.trim() === '') {
    return { condition: condition(reasons.EmptyValue, `Secret "${ref.name}" key "${key}" is empty.`) };
  }
  if (!isPostgresURL(value)) {
    return {
      condition: condition(reasons.InvalidURL, `Secret "${ref.name}" key "${key}" is not a valid postgres:// or postgresql:// URL.`),
    };
  }
  return {
    condition: condition(
      reasons.Resolved,
      `Secret "${ref.name}" key "${key}" contains a PostgreSQL connection URL. This does not check that the database is reachable.`,
      'True',
    ),
    url: value,
  };
}
