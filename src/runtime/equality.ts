// Deep equality of JSON values, for "write only when something changed".
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => jsonEqual(v, other[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const otherKeys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return keys.length === otherKeys.length && keys.every((k) => jsonEqual(ao[k], bo[k]));
}

/** True when every field of `desired` is present in `live` with the same value (arrays element by element). */
export function jsonSubset(desired: unknown, live: unknown): boolean {
  if (desired === live) return true;
  if (desired === null || typeof desired !== 'object') return desired === live;
  if (live === null || typeof live !== 'object' || Array.isArray(desired) !== Array.isArray(live)) return false;
  if (Array.isArray(desired)) {
    const other = live as unknown[];
    return desired.length === other.length && desired.every((v, i) => jsonSubset(v, other[i]));
  }
  const lo = live as Record<string, unknown>;
  return Object.entries(desired as Record<string, unknown>).every(([k, v]) => v === undefined || jsonSubset(v, lo[k]));
}
