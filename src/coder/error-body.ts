// Turns an HTTP error answer into a CoderApiError, reading Coder's {message, detail, validations} body.
import { CoderApiError, type ValidationError } from './errors.ts';
import { excerpt } from './response-body.ts';
import { parseRetryAfter } from './retry.ts';

export interface ErrorAnswer {
  method: string;
  path: string;
  status: number;
  statusText?: string;
  /** The raw body text; it may be empty, JSON from Coder, or anything else from a proxy in between. */
  body: string;
  buildVersion?: string | null;
  retryAfter?: string | null;
  /** Values that must not appear in the error (the session token), should the body echo them. */
  secrets?: readonly string[];
}

/** The most characters of Coder's message or detail kept in an error (and so in a log line or condition). */
export const maxMessageChars = 1_000;
/** The most field validations kept, and the most characters of each one's field and detail. */
export const maxValidations = 20;
export const maxValidationChars = 200;

export function parseCoderError(answer: ErrorAnswer): CoderApiError {
  // Secrets are removed before cutting, so a token is never cut in half and left readable.
  const scrub = (text: string) => excerpt(removeSecrets(text, answer.secrets ?? []), maxMessageChars);
  const parsed = parseJsonObject(answer.body);
  const init: ConstructorParameters<typeof CoderApiError>[0] = {
    method: answer.method,
    path: answer.path,
    status: answer.status,
  };
  if (answer.statusText) init.statusText = answer.statusText;
  if (answer.buildVersion) init.buildVersion = answer.buildVersion;
  const retryAfterMs = parseRetryAfter(answer.retryAfter);
  if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;

  if (parsed && typeof parsed.message === 'string') {
    init.coderMessage = scrub(parsed.message);
    if (typeof parsed.detail === 'string' && parsed.detail !== '') init.detail = scrub(parsed.detail);
    const validations = parseValidations(parsed.validations, scrub);
    if (validations.length > 0) init.validations = validations;
  } else if (answer.body.trim() !== '') {
    // Not Coder's body (a proxy's HTML page, or whatever a URL in a spec points at): its text is not
    // shown, since it ends up in conditions and Events that other users read and its author is unknown.
    init.detail = `the body, ${Buffer.byteLength(answer.body)} bytes, is not Coder's JSON and is not shown`;
  }
  return new CoderApiError(init);
}

function parseJsonObject(body: string): Record<string, unknown> | undefined {
  if (body.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseValidations(value: unknown, scrubMessage: (text: string) => string): ValidationError[] {
  const scrub = (text: string) => excerpt(scrubMessage(text), maxValidationChars);
  if (!Array.isArray(value)) return [];
  const out: ValidationError[] = [];
  for (const item of value.slice(0, maxValidations)) {
    if (item === null || typeof item !== 'object') continue;
    const { field, detail } = item as { field?: unknown; detail?: unknown };
    if (typeof field !== 'string') continue;
    out.push({ field: scrub(field), detail: scrub(typeof detail === 'string' ? detail : '') });
  }
  return out;
}

/** Replaces every occurrence of each secret (at least 4 characters long) with [REDACTED]. */
export function removeSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  }
  return out;
}
