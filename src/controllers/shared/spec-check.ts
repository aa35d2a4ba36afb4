// The spec check any kind runs before it acts. An object stored under an older or looser CRD may break
// this version's schema; the API server keeps such values until they change (ratcheting), so the
// reconcile does too: only a value of the wrong type, which no builder can read, or a spec that a builder
// cannot turn into objects (SpecError) gets SpecValid=False with a message naming the field, a Warning
// Event, and nothing else changed. Any other schema error is named in SpecValid=True and a Warning Event.
import { SpecValidCondition } from '../../../generated/types/conditions.ts';
import { findCondition, type Condition, type ConditionOf } from '../../runtime/conditions.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { scrubSecrets } from '../../runtime/redaction.ts';
import { TerminalError } from '../../runtime/terminal-error.ts';
import { isWrongType, type ValidationError } from '../../validation/error.ts';
import { eventTarget } from './event-target.ts';
import type { ChangeOf, StepOutcome } from './reconcile/outcome.ts';

// The kinds that build children from their spec (control plane, provisioner, proxy) share SpecValid.
const SpecValid = SpecValidCondition;

/** SpecValid as those kinds declare it. */
export type SpecValid = ConditionOf<typeof SpecValid>;

/** The outcome of a step that decides SpecValid. */
export type SpecOutcome<Status> = StepOutcome<Status, ChangeOf<SpecValid>>;

/**
 * A spec that passed admission but cannot be built into objects, for example an empty TLS secret name.
 * The user must change it; retrying does not help. `field` is the path of the offending field
 * (`spec.tls.secretNames[1]`), and the message starts with it. Messages name fields and object names
 * only, never values, which may hold secrets.
 */
export class SpecError extends TerminalError {
  override readonly name = 'SpecError';
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.field = field;
  }
}

export type ValidatedObject = KubeObject & {
  metadata: { name?: string; namespace?: string; uid?: string; generation?: number };
  status?: { conditions?: readonly Condition[] };
};

/** Schema errors split into those that stop a reconcile (a value of the wrong type) and those it tolerates. */
export function partitionSchemaErrors(errors: readonly ValidationError[]): { blocking: ValidationError[]; tolerated: ValidationError[] } {
  const blocking = errors.some(isWrongType);
  return blocking ? { blocking: [...errors], tolerated: [] } : { blocking: [], tolerated: [...errors] };
}

function listed(errors: readonly ValidationError[]): string {
  const first = errors
    .slice(0, 5)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  return errors.length > 5 ? `${first} (and ${errors.length - 5} more)` : first;
}

/** The first few schema errors as one message, scrubbed of anything that looks like a secret. */
export function schemaErrorsMessage(kind: string, errors: readonly ValidationError[]): string {
  return scrubSecrets(`The object does not match the ${kind} schema of this operator: ${listed(errors)}.`);
}

/** The message naming the fields of wrong type (which stop a reconcile), or undefined when there are none. */
export function blockingSchemaProblem(kind: string, errors: readonly ValidationError[]): string | undefined {
  const { blocking } = partitionSchemaErrors(errors);
  return blocking.length ? schemaErrorsMessage(kind, blocking) : undefined;
}

/**
 * SpecValid True with `message`. Tolerated schema errors are appended, and a Warning Event names them
 * when they differ from the ones the condition already names.
 */
export async function specValidCondition<T extends ValidatedObject>(
  deps: { events: Pick<EventRecorder, 'record'> },
  obj: T,
  message: string,
  tolerated: readonly ValidationError[] = [],
): Promise<SpecValid> {
  if (!tolerated.length) return { type: SpecValid.type, status: 'True', reason: SpecValid.reasons.Valid, message };
  const warning = scrubSecrets(
    `This operator's schema refuses values that the API server keeps until they change: ${listed(tolerated)}. Fix them at the next edit.`,
  );
  const full = `${message} ${warning}`;
  const previous = findCondition(obj.status?.conditions, SpecValid.type);
  if (previous?.message !== full) await deps.events.record(eventTarget(obj), 'Warning', 'SchemaWarning', 'ValidateSpec', warning);
  return { type: SpecValid.type, status: 'True', reason: SpecValid.reasons.Valid, message: full };
}

/**
 * The outcome of a spec the kind cannot act on: SpecValid False with `message` and a Warning Event; the steps
 * stop and the rest of the status is left as it is.
 */
export async function invalidSpec<Status>(
  deps: { events: Pick<EventRecorder, 'record'> },
  obj: ValidatedObject,
  message: string,
): Promise<SpecOutcome<Status>> {
  await deps.events.record(eventTarget(obj), 'Warning', SpecValid.reasons.InvalidSpec, 'ValidateSpec', message);
  const invalid: SpecValid = { type: SpecValid.type, status: 'False', reason: SpecValid.reasons.InvalidSpec, message };
  return { conditions: { [SpecValid.type]: invalid }, conditionsOnly: true, stop: true };
}

/**
 * The schema step: the object against the kind's schema. A value of the wrong type stops the steps (invalidSpec);
 * other errors are `tolerated`, for specValidCondition to name.
 */
export async function checkSchema<Status>(
  deps: { events: Pick<EventRecorder, 'record'> },
  obj: ValidatedObject,
  kind: string,
  errors: readonly ValidationError[],
): Promise<SpecOutcome<Status> & { tolerated: readonly ValidationError[] }> {
  const { blocking, tolerated } = partitionSchemaErrors(errors);
  if (blocking.length) return { ...(await invalidSpec<Status>(deps, obj, schemaErrorsMessage(kind, blocking))), tolerated };
  return { tolerated };
}
