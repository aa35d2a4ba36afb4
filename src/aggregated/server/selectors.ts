// Label and field selectors of list and watch, and the list options decoded with them, parsed as
// kube-apiserver parses them. Fields: metadata.name and metadata.namespace only, as the Go original;
// anything else is a 400 naming the supported fields.
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import { badRequest } from '../status.ts';
import { isInt64, matchesLabels, parseLabelSelector } from './label-selector.ts';

export type Selector = (obj: AggregatedObject) => boolean;

export function labelSelector(text: string | null): Selector {
  if (!text) return () => true;
  let requirements;
  try {
    requirements = parseLabelSelector(text);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  return (obj) => matchesLabels(requirements, obj.metadata.labels ?? {});
}

export interface FieldTerm {
  /** The term as written. */
  term: string;
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

/** Go's sort.Strings order: by UTF-8 bytes. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** As Go's fields.UnescapeValue: `\,`, `\=` and `\\` are the escapes, and an unescaped `,` or `=` is an error. */
function unescapeValue(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\') {
      const next = raw[++i];
      if (next !== '\\' && next !== ',' && next !== '=')
        throw new Error(`invalid field selector: invalid escape sequence: \\${next ?? ''}`);
      out += next;
    } else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  return out;
}

/**
 * The terms of a field selector as Go's fields.ParseSelector reads them (k8s.io/apimachinery
 * pkg/fields/selector.go): split at commas no backslash escapes, sorted, each split at its first operator
 * with nothing trimmed, the value unescaped. Throws Go's error when kube-apiserver would refuse it.
 */
export function parseFieldSelector(text: string): FieldTerm[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text) parts.push(text.slice(start));
  return parts
    .sort(byBytes)
    .filter(Boolean)
    .map((part) => {
      const m = /^(.*?)(!=|==|=)(.*)$/s.exec(part);
      if (!m) throw new Error(`invalid selector: '${text}'; can't understand '${part}'`);
      return { term: part, field: m[1]!, operator: m[2] as FieldTerm['operator'], value: unescapeValue(m[3]!) };
    });
}

/**
 * The name a field selector requires exactly, as Go's RequiresExactMatch("metadata.name"): the first `=` or
 * `==` term of metadata.name in sorted order; undefined when it requires none or cannot be parsed.
 */
export function exactName(text: string | null): string | undefined {
  if (!text) return undefined;
  try {
    return parseFieldSelector(text).find((t) => t.field === 'metadata.name' && t.operator !== '!=')?.value;
  } catch {
    return undefined;
  }
}

const fields: Record<string, (o: AggregatedObject) => string> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace,
};

export function fieldSelector(text: string | null): Selector {
  if (!text) return () => true;
  let terms: FieldTerm[];
  try {
    terms = parseFieldSelector(text);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  const checks = terms.map(({ term, field, operator, value }): Selector => {
    const read = Object.hasOwn(fields, field) ? fields[field]! : undefined;
    if (!read) throw badRequest(`field selector "${term}" is not supported; supported fields: metadata.name, metadata.namespace`);
    return operator === '!=' ? (o) => read(o) !== value : (o) => read(o) === value;
  });
  return (obj) => checks.every((check) => check(obj));
}

/**
 * Why kube-apiserver could not decode the query as ListOptions (Convert_url_Values_To_v1_ListOptions: the
 * integers timeoutSeconds and limit, then the label and field selectors parsed), in its words; undefined
 * when it can. The other options are strings or booleans, which any value is.
 */
export function listOptionsError(query: URLSearchParams): string | undefined {
  for (const option of ['timeoutSeconds', 'limit']) {
    const value = query.get(option);
    if (value !== null && !isInt64(value))
      return `strconv.ParseInt: parsing ${JSON.stringify(value)}: ${/^[+-]?[0-9]+$/.test(value) ? 'value out of range' : 'invalid syntax'}`;
  }
  try {
    parseLabelSelector(query.get('labelSelector') ?? '');
    parseFieldSelector(query.get('fieldSelector') ?? '');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
