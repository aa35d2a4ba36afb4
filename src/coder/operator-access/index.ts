// The operator-access bootstrap: the coder-k8s-operator user and its API token, written directly into
// Coder's PostgreSQL database (no Kubernetes here; the controller supplies URL, token and name).
export { generateToken, hashSecret, type GeneratedToken } from './api-key.ts';
export { checkOperatorToken, type CheckOperatorTokenInput } from './check.ts';
export type { DatabaseTimeouts } from './connection.ts';
export { ensureOperatorToken, type EnsureOperatorTokenInput, type EnsureOperatorTokenResult } from './ensure.ts';
export { OperatorAccessError, type OperatorAccessReason } from './errors.ts';
export { operatorEmail, operatorUsername } from './operator-user.ts';
export { organizationAdminRoles, ownerRoles, type OperatorRoles } from './roles.ts';
export { parseDatabaseURL, type DatabaseEndpoint } from './database-url.ts';
export { revokeOperatorToken, type RevokeOperatorTokenInput } from './revoke.ts';
export { operatorTokenName } from './token-name.ts';
