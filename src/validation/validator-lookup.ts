// Picks the validator of an object's apiVersion and kind from the validators the caller passes in (the
// generated ones, in the operator), so this library imports no generated code.
import type { ValidationError } from './error.ts';
import { runValidation, type KindValidator } from './validate.ts';

/** The validator of a kind, e.g. validatorFor(kindValidators, 'coder.com/v1alpha1', 'CoderControlPlane'). */
export function validatorFor(validators: readonly KindValidator[], apiVersion: string, kind: string): KindValidator | undefined {
  return validators.find((v) => v.apiVersion === apiVersion && v.kind === kind);
}

/** Validates an object of any of `validators`' kinds; undefined when its apiVersion and kind are none of them. */
export function validateObject(validators: readonly KindValidator[], obj: unknown, old?: unknown): ValidationError[] | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  const v = validatorFor(validators, String(apiVersion), String(kind));
  return v && runValidation(v, obj, old);
}
