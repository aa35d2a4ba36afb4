// What counts as a secret in text and in objects, and how it is removed before anything is printed or
// written to a condition or an Event.

export const censor = '[REDACTED]';
const hidden = 'REDACTED';

/** Keys whose values are never printed, whatever they hold (compared case-insensitively). */
const sensitiveKeys: readonly string[] = [
  'token',
  'password',
  'passwd',
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
];
const sensitiveKeySet = new Set(sensitiveKeys.map((key) => key.toLowerCase()));
/** Any key that ends like a secret: DB_PASSWORD, clientSecret, awsCredentials, refreshToken. */
const sensitiveKeySuffix = /(?:password|passwd|secret|credentials?|token|apikey|api_key|api-key)$/i;

function isSensitiveKey(key: string): boolean {
  return sensitiveKeySet.has(key.toLowerCase()) || sensitiveKeySuffix.test(key);
}

const secretSuffix = /(?:password|passwd|pwd|token|secret|credentials?|apikey|api_key|api-key)$/i;
const secretJsonKey = /password|passwd|pwd|token|secret|credential|authorization|apikey|api_key|api-key/i;

interface Rule {
  /** A cheap test on the lower-cased text, so the common string with nothing secret costs little. */
  applies: (lower: string) => boolean;
  pattern: RegExp;
  replace: string | ((match: string, ...groups: string[]) => string);
}

// Each rule removes one shape of secret and keeps the text around it, so a message stays useful.
// Patterns start at a boundary (lookbehind) so none backtracks quadratically on long strings.
const rules: Rule[] = [
  {
    applies: (lower) => lower.includes('private key'),
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    replace: hidden,
  },
  {
    // scheme://user:pass@host where the password holds what a URL should have escaped ('/', '?', '#',
    // spaces): from the user's colon up to the last '@' on the line (within 256 characters). This may
    // hide more than the password when a later '@' follows on the line; it never hides less.
    applies: (lower) => lower.includes('://') && lower.includes('@'),
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@:]*:[^\n]{0,256}@/gi,
    replace: `$1${hidden}@`,
  },
  {
    // scheme://user:pass@host for any scheme; greedy up to the last '@' of the authority, since
    // passwords often hold an unescaped '@'.
    applies: (lower) => lower.includes('://') && lower.includes('@'),
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi,
    replace: `$1${hidden}@`,
  },
  {
    // "password": "..." and the like inside JSON carried in a string (an API response body, say).
    applies: (lower) => lower.includes('"') && secretJsonKey.test(lower),
    pattern: /"([^"\\\s]{1,200})"(\s*:\s*)"(?:[^"\\]|\\.)*"/g,
    replace: (match, key, colon) => (secretJsonKey.test(key!) ? `"${key}"${colon}"${hidden}"` : match),
  },
  {
    // Coder-Session-Token: x, coder_session_token=x
    applies: (lower) => lower.includes('session'),
    pattern: /(coder[-_]session[-_]token["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
    replace: `$1${hidden}`,
  },
  {
    // Authorization: Bearer x, Authorization=Basic x
    applies: (lower) => lower.includes('authorization'),
    pattern: /(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|digest|negotiate)\s+)?[^\s"',;&]+/gi,
    replace: `$1${hidden}`,
  },
  {
    // key=value in URLs and libpq keyword strings: password=x, sslpassword='x y', access_token=x.
    applies: (lower) => lower.includes('='),
    pattern: /(?<![a-z0-9_.-])([a-z0-9_.-]{1,100})(\s*=\s*)('[^']*'|"[^"]*"|[^\s&;,'"]+)/gi,
    replace: (match, key, equals) => (secretSuffix.test(key!) ? `${key}${equals}${hidden}` : match),
  },
  {
    // KEY: value, as in YAML or env dumps: password: x, DB_PASSWORD: x, clientSecret: 'x', token: x.
    applies: (lower) => lower.includes(':') && secretJsonKey.test(lower),
    pattern: /(?<![a-z0-9_.-])([a-z0-9_.-]{1,100})(["']?\s*:[ \t]*)(?!["']?\[?REDACTED)('[^'\n]*'|"[^"\n]*"|[^\s,;]+)/gi,
    replace: (match, key, colon) => (secretSuffix.test(key!) ? `${key}${colon}${hidden}` : match),
  },
  {
    applies: (lower) => lower.includes('bearer'),
    pattern: /(?<![a-z0-9_])bearer\s+[a-z0-9\-._~+/]+=*/gi,
    replace: `Bearer ${hidden}`,
  },
  {
    // A Coder API token: a 10-character id, '-', a 22-character secret.
    applies: (lower) => lower.length >= 33 && lower.includes('-'),
    pattern: /(?<![A-Za-z0-9])[A-Za-z0-9]{10}-[A-Za-z0-9]{22}(?![A-Za-z0-9])/g,
    replace: hidden,
  },
  {
    // JWTs, such as ServiceAccount tokens.
    applies: (lower) => lower.includes('eyj'),
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
    replace: hidden,
  },
];

/** Replaces every secret-looking part of `text` (credentials in URLs, tokens, auth headers) with REDACTED. */
export function scrubSecrets(text: string): string {
  // No shape below fits in fewer characters ("pwd=abcd", "Bearer x").
  if (text.length < 8) return text;
  let result = text;
  let lower = text.toLowerCase();
  for (const rule of rules) {
    if (!rule.applies(lower)) continue;
    const replaced = result.replace(rule.pattern, rule.replace as (match: string, ...groups: string[]) => string);
    if (replaced !== result) {
      result = replaced;
      lower = result.toLowerCase();
    }
  }
  return result;
}

/**
 * A copy of a JSON value with every string scrubbed and the value of every sensitive key replaced,
 * at any depth.
 */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) return `${censor} (${value.byteLength} bytes)`;
  // Node puts the whole text it could not parse on an invalid URL's error: any shape, any secret.
  const invalidUrl = (value as { code?: unknown }).code === 'ERR_INVALID_URL';
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // A Kubernetes object under such a key (a Secret logged as `secret`) keeps its metadata; its
    // data and stringData are sensitive keys of their own.
    const hide =
      (isSensitiveKey(key) || (invalidUrl && key === 'input')) && inner !== null && inner !== undefined && !isKubernetesObject(inner);
    copy[scrubSecrets(key)] = hide ? censor : redactDeep(inner);
  }
  return copy;
}

function isKubernetesObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
  return typeof kind === 'string' && metadata !== null && typeof metadata === 'object';
}
