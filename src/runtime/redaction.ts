// What counts as a secret in text, and how it is removed before the text is printed or written to a
// condition or an Event. Log lines add stricter rules of their own (log-redaction.ts).

export const censor = '[REDACTED]';
const hidden = 'REDACTED';

/** `name=value` and `name: value` names whose value is a secret. */
const secretSuffix = /(?:password|passwd|pwd|token|secret|credentials?|apikey|api_key|api-key)$/i;
/** `"name": "value"` names whose value is a secret (anywhere in the name, as JSON keys are not prose). */
const secretJsonKey = /password|passwd|pwd|token|secret|credential|authorization|apikey|api_key|api-key/i;
// ssl_key, aws_secret_access_key, private_key and AWS_ACCESS_KEY_ID. Only with an underscore: a name
// ending in "-key" is a Kubernetes object name in prose ("Secret coder/prod-provisioner-key: …").
const secretKeyName = /_key$|access_?key_?id$/i;
// db_pass=…, "pass": "…". Not in `pass: …`, which is English ("Tests pass: 3 of 3").
const passName = /(?:^|[_-])pass$/i;

/** Which names hide their value in each way of writing `name`/`value` text. */
export interface SecretNames {
  json: (name: string) => boolean;
  equals: (name: string) => boolean;
  colon: (name: string) => boolean;
  /** A cheap test on the lower-cased text: does it mention such a name at all? */
  mentioned: (lower: string) => boolean;
}

const sharedSecretNames: SecretNames = {
  json: (name) => secretJsonKey.test(name) || secretKeyName.test(name) || passName.test(name),
  equals: (name) => secretSuffix.test(name) || secretKeyName.test(name) || passName.test(name),
  colon: (name) => secretSuffix.test(name) || secretKeyName.test(name),
  mentioned: (lower) => secretJsonKey.test(lower) || lower.includes('key') || lower.includes('pass'),
};

export interface Rule {
  /** A cheap test on the lower-cased text, so the common string with nothing secret costs little. */
  applies: (lower: string) => boolean;
  pattern: RegExp;
  replace: string | ((match: string, ...groups: string[]) => string);
}

/**
 * The three rules that hide the value of a secret name: `"name": "value"` in JSON carried in a string,
 * `name=value` (URLs, libpq and ODBC strings, env dumps) and `name: value` (YAML, headers).
 */
export function nameValueRules(names: SecretNames): { json: Rule; equals: Rule; colon: Rule } {
  return {
    json: {
      applies: (lower) => lower.includes('"') && names.mentioned(lower),
      pattern: /"([^"\\\s]{1,200})"(\s*:\s*)"(?:[^"\\]|\\.)*"/g,
      replace: (match, key, colon) => (names.json(key!) ? `"${key}"${colon}"${hidden}"` : match),
    },
    equals: {
      // password=x, sslpassword='x y', access_token=x, Pwd={x;y} (ODBC braces, '}}' escapes a '}').
      applies: (lower) => lower.includes('=') && names.mentioned(lower),
      pattern: /(?<![a-z0-9_.-])([a-z0-9_.-]{1,100})(\s*=\s*)(\{(?:[^}]|\}\})*\}|'[^']*'|"[^"]*"|[^\s&;,'"]+)/gi,
      replace: (match, key, equals) => (names.equals(key!) ? `${key}${equals}${hidden}` : match),
    },
    colon: {
      // password: x, DB_PASSWORD: x, clientSecret: 'x', token: x.
      applies: (lower) => lower.includes(':') && names.mentioned(lower),
      pattern: /(?<![a-z0-9_.-])([a-z0-9_.-]{1,100})(["']?\s*:[ \t]*)(?!["']?\[?REDACTED)('[^'\n]*'|"[^"\n]*"|[^\s,;]+)/gi,
      replace: (match, key, colon) => (names.colon(key!) ? `${key}${colon}${hidden}` : match),
    },
  };
}

const sharedNameValue = nameValueRules(sharedSecretNames);

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
  sharedNameValue.json,
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
  sharedNameValue.equals,
  sharedNameValue.colon,
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

/**
 * Replaces every secret-looking part of `text` (credentials in URLs, tokens, auth headers) with REDACTED.
 * Safe for prose: conditions and Events go through this, so no rule fires on an English word.
 */
export function scrubSecrets(text: string): string {
  return applyRules(text, rules);
}

/** `text` with each rule applied in turn. */
export function applyRules(text: string, ruleList: readonly Rule[]): string {
  // No shape fits in fewer characters ("pwd=x").
  if (text.length < 5) return text;
  let result = text;
  let lower = text.toLowerCase();
  for (const rule of ruleList) {
    if (!rule.applies(lower)) continue;
    const replaced = result.replace(rule.pattern, rule.replace as (match: string, ...groups: string[]) => string);
    if (replaced !== result) {
      result = replaced;
      lower = result.toLowerCase();
    }
  }
  return result;
}
