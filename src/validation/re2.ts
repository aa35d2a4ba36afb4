// RE2 regular expressions for the ajv validators: the API server matches OpenAPI `pattern` with Go's
// regexp (RE2), whose syntax and semantics differ from JavaScript's (\s, ., Unicode classes).
import { RE2JS } from '@bufbuild/re2';

const cache = new Map<string, RE2JS>();

/** Compiles (once) an RE2 pattern; unanchored search, like Go's MatchString. */
export function re2(pattern: string): { test(input: string): boolean } {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern);
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** The ajv `code.regExp` engine; `code` is the name the generated validators import it by. */
export const re2RegExp = Object.assign((pattern: string) => re2(pattern), { code: 're2RegExp' });
