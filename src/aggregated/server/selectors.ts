// Label and field selectors of list and watch. Fields: metadata.name and
// metadata.namespace only, as the Go original; anything else is a 400 naming the supported fields.
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import { badRequest } from '../status.ts';

export type Selector = (obj: AggregatedObject) => boolean;

/** Splits on commas outside parentheses: `a in (x,y),b` → ["a in (x,y)", "b"]. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim()).filter(Boolean);
}

export function labelSelector(text: string | null): Selector {
  if (!text) return () => true;
  const checks = terms(text).map((term): Selector => {
    const labels = (o: AggregatedObject) => o.metadata.labels ?? {};
    let m = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s]*)$/.exec(term);
    if (m) {
      const [, key, op, value] = m;
      return op === '!=' ? (o) => labels(o)[key!] !== value : (o) => labels(o)[key!] === value;
    }
    m = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (m) {
      const [, key, op, list] = m;
      const values = new Set(list!.split(',').map((v) => v.trim()));
      return op === 'in' ? (o) => values.has(labels(o)[key!] ?? '\0') : (o) => !values.has(labels(o)[key!] ?? '\0');
    }
    m = /^(!?)([^\s!=(),]+)$/.exec(term);
    if (m) {
      const [, not, key] = m;
      return not ? (o) => !(key! in labels(o)) : (o) => key! in labels(o);
    }
    throw badRequest(`unable to parse requirement: invalid label selector "${text}"`);
  });
  return (obj) => checks.every((check) => check(obj));
}

const fields: Record<string, (o: AggregatedObject) => string> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace,
};

/**
 * The name a field selector requires exactly (its first `metadata.name=` or `==` term), as kube-apiserver's
 * RequiresExactMatch; undefined when it requires none or cannot be parsed.
 */
export function exactName(text: string | null): string | undefined {
  if (!text) return undefined;
  if (!terms(text).every((term) => /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.test(term))) return undefined;
  for (const term of terms(text)) {
    const m = /^metadata\.name\s*(==|=)\s*(.*)$/.exec(term);
    if (m) return m[2]!.trim();
  }
  return undefined;
}

export function fieldSelector(text: string | null): Selector {
  if (!text) return () => true;
  const checks = terms(text).map((term): Selector => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    const read = m ? fields[m[1]!] : undefined;
    if (!m || !read) throw badRequest(`field selector "${term}" is not supported; supported fields: metadata.name, metadata.namespace`);
    const value = m[3]!.trim();
    return m[2] === '!=' ? (o) => read(o) !== value : (o) => read(o) === value;
  });
  return (obj) => checks.every((check) => check(obj));
}
