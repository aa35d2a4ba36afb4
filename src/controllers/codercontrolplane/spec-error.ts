// The error the desired-state builders throw when the spec cannot be turned into objects.

/**
 * A CoderControlPlane spec that passed admission but cannot be built into children, for example an
 * empty TLS secret name. The user must change the spec; retrying does not help. `field` is the path
 * of the offending field (`spec.tls.secretNames[1]`), and the message starts with it. Messages name
 * fields and object names only, never env values, which may hold secrets.
 */
export class SpecError extends Error {
  override readonly name = 'SpecError';
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.field = field;
  }
}
