// The spec check any kind runs before it acts: an object that fails this version's generated validator
// (stored under an older or unvalidated CRD), or that a builder cannot turn into objects (SpecError),
// gets SpecValid=False with a message naming the field, a Warning Event, and nothing else is changed.
import type { ConditionInput } from '../../runtime/conditions.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { scrubSecrets } from '../../runtime/redaction.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import { TerminalError } from '../../runtime/terminal-error.ts';
import type { Writer } from '../../runtime/writer.ts';
import type { ValidationError } from '../../validation/error.ts';
import { eventTarget } from './event-target.ts';
import { writeConditions } from './step-outcome.ts';

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

/** The SpecValid condition a kind declares in its schema (generated constants). */
export interface SpecValidCondition {
  type: 'SpecValid';
  reasons: { Valid: 'Valid'; InvalidSpec: 'InvalidSpec' };
}

export type ValidatedObject = KubeObject & {
  metadata: { name?: string; namespace?: string; uid?: string; generation?: number };
  status?: { conditions?: unknown };
};

/** The first few schema errors as one message, scrubbed of anything that looks like a secret. */
export function schemaErrorsMessage(kind: string, errors: readonly ValidationError[]): string {
  const listed = errors
    .slice(0, 5)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  return scrubSecrets(`The object does not match the ${kind} schema of this operator: ${listed}${more}.`);
}

export function specValidCondition(condition: SpecValidCondition, message: string): ConditionInput {
  return { type: condition.type, status: 'True', reason: condition.reasons.Valid, message };
}

/** SpecValid False with `message`, and a Warning Event; the rest of the status is left as it is. */
export async function reportInvalidSpec<T extends ValidatedObject>(
  deps: { writer: Writer; events: EventRecorder; now(): Date },
  resource: ResourceKind,
  obj: T,
  condition: SpecValidCondition,
  message: string,
): Promise<void> {
  await deps.events.record(eventTarget(obj), 'Warning', condition.reasons.InvalidSpec, 'ValidateSpec', message);
  const invalid = { type: condition.type, status: 'False' as const, reason: condition.reasons.InvalidSpec, message };
  await writeConditions(deps.writer, resource, obj, { [condition.type]: invalid }, deps.now());
}
