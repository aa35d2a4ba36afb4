// What log lines hide beyond what conditions and Events hide: names that are also English words
// ("key: …", "license: …", "pass: …"), and the value of every sensitive field of a logged object.
import { applyRules, censor, nameValueRules, scrubSecrets, type Rule, type SecretNames } from './redaction.ts';

// In a log line "key" and "license" are most often a value being printed (a provisioner key, a
// license JWT that is not yet a JWT); in a condition they are words of a sentence, so only here.
const logOnlyName = /^(?:key|license|pass)$/i;

const logOnlyNames: SecretNames = {
  json: (name) => logOnlyName.test(name),
  equals: (name) => logOnlyName.test(name),
  colon: (name) => logOnlyName.test(name),
  mentioned: (lower) => lower.includes('key') || lower.includes('license') || lower.includes('pass'),
};
const { json, equals, colon } = nameValueRules(logOnlyNames);
// "Invalid license: token contains …" (Coder's answer) is prose: after such a word, a value of letters
// only is the next word of the sentence; keys and licenses hold digits or punctuation.
const proseWord = /^[a-z]+$/i;
const colonUnlessProse: Rule = {
  ...colon,
  replace: (match: string, ...groups: string[]) =>
    proseWord.test(groups[2] ?? '') ? match : (colon.replace as (match: string, ...groups: string[]) => string)(match, ...groups),
};
const logOnlyRules = [json, equals, colonUnlessProse];

/** scrubSecrets, then the rules only a log line gets. */
export function scrubLogText(text: string): string {
  return applyRules(scrubSecrets(text), logOnlyRules);
}

/** Field names whose value is never printed, whatever it holds (compared case-insensitively). */
const sensitiveFields: readonly string[] = [
  'token',
  'password',
  'passwd',
  'pwd',
  'pass',
  'authorization',
  'coder-session-token',
  'data',
  'stringData',
  'connectionURL',
  'connectionString',
  'dsn',
  'accessToken',
  'sessionToken',
  'bearerToken',
  'apiKey',
  'apiToken',
  'privateKey',
  'client-key-data',
  'clientKeyData',
  'secret',
  'clientSecret',
  'client_secret',
  'credentials',
  'credential',
  'key',
  'license',
];
const sensitiveFieldSet = new Set(sensitiveFields.map((field) => field.toLowerCase()));
/** Any field that ends like a secret: DB_PASSWORD, clientSecret, awsCredentials, refreshToken, ssl_key, AWS_ACCESS_KEY_ID. */
const sensitiveFieldSuffix = /(?:password|passwd|secret|credentials?|token|apikey|api_key|api-key|_key|access_?key_?id)$/i;
/** A reference to a key of a Secret or ConfigMap (secretKeyRef, connectionSecretRef, keySelector): its `key` is a name. */
const keyReference = /(?:ref|selector)$/i;

function isSensitiveField(field: string, parent: string | undefined): boolean {
  if (field.toLowerCase() === 'key' && parent !== undefined && keyReference.test(parent)) return false;
  return sensitiveFieldSet.has(field.toLowerCase()) || sensitiveFieldSuffix.test(field);
}

/**
 * A copy of a JSON value (a parsed log line) with every string scrubbed and the value of every
 * sensitive field replaced, at any depth.
 */
export function redactLogValue(value: unknown, parent?: string): unknown {
  if (typeof value === 'string') return scrubLogText(value);
  if (Array.isArray(value)) return value.map((item) => redactLogValue(item, parent));
  if (value === null || typeof value !== 'object') return value;
  // Node puts the whole text it could not parse on an invalid URL's error: any shape, any secret.
  const invalidUrl = (value as { code?: unknown }).code === 'ERR_INVALID_URL';
  const copy: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) {
    // A Kubernetes object under such a field (a Secret logged as `secret`) keeps its metadata; its
    // data and stringData are sensitive fields of their own. A reference to one ({namespace, name})
    // holds names only, and names are not secret.
    const hide =
      (isSensitiveField(field, parent) || (invalidUrl && field === 'input')) &&
      inner !== null &&
      inner !== undefined &&
      !isKubernetesObject(inner) &&
      !isObjectReference(inner);
    copy[scrubLogText(field)] = hide ? censor : redactLogValue(inner, field);
  }
  return copy;
}

function isKubernetesObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
  return typeof kind === 'string' && metadata !== null && typeof metadata === 'object';
}

/** Fields of a reference to a Kubernetes object, as an ObjectReference names them. */
const referenceFields = new Set(['apiVersion', 'kind', 'namespace', 'name', 'uid']);

/** `{namespace, name}` (and kind, apiVersion, uid): a reference to an object, all names, no value. */
function isObjectReference(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    typeof (value as { name?: unknown }).name === 'string' &&
    entries.every(([field, inner]) => referenceFields.has(field) && typeof inner === 'string')
  );
}
