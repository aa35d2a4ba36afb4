// Checks on the caller's input, made before any connection is opened.
import { defaultTimeouts, type DatabaseTimeouts } from './connection.ts';
import { OperatorAccessError } from './errors.ts';

function invalid(message: string): OperatorAccessError {
  return new OperatorAccessError('Invalid', message);
}

export function requireTokenName(tokenName: string | undefined): string {
  if ((tokenName ?? '').trim() === '') throw invalid('the token name is empty');
  return tokenName!;
}

export function requireLifetime(lifetimeSeconds: number): number {
  if (!Number.isSafeInteger(lifetimeSeconds) || lifetimeSeconds <= 0) {
    throw invalid('the token lifetime must be a whole number of seconds greater than 0');
  }
  return lifetimeSeconds;
}

/** The renewal window: whole seconds, at least 0 and shorter than the lifetime (or every call would rotate). */
export function requireRenewal(renewBeforeSeconds: number, lifetimeSeconds: number): number {
  if (!Number.isSafeInteger(renewBeforeSeconds) || renewBeforeSeconds < 0 || renewBeforeSeconds >= lifetimeSeconds) {
    throw invalid('the token renewal window must be a whole number of seconds, at least 0 and shorter than the token lifetime');
  }
  return renewBeforeSeconds;
}

export function requireDate(now: Date | undefined): Date {
  const date = now ?? new Date();
  if (Number.isNaN(date.getTime())) throw invalid('the current time is not a valid date');
  return date;
}

export function resolveTimeouts(timeouts: Partial<DatabaseTimeouts> | undefined): DatabaseTimeouts {
  const resolved = { ...defaultTimeouts, ...timeouts };
  for (const [name, ms] of Object.entries(resolved)) {
    if (!Number.isFinite(ms) || ms <= 0) throw invalid(`the ${name} timeout must be greater than 0`);
  }
  return resolved;
}
