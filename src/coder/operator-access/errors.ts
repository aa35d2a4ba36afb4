// The one error type of the operator-access bootstrap: a reason for the condition and a message that is
// safe to show anywhere (it never holds the URL, host, user name, password or a token).

export type OperatorAccessReason =
  'Unreachable' | 'AuthenticationFailed' | 'SchemaMismatch' | 'NoOrganization' | 'UserNotCreatedByOperator' | 'Invalid' | 'Failed';

export class OperatorAccessError extends Error {
  override readonly name = 'OperatorAccessError';
  readonly reason: OperatorAccessReason;
  /** The SQLSTATE or system error code behind the failure, if any: a code, never a value. */
  readonly code: string | undefined;

  constructor(reason: OperatorAccessReason, message: string, code?: string) {
    super(message);
    this.reason = reason;
    this.code = code;
  }
}
