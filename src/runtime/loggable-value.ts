// A plain JSON copy of anything handed to the logger, so that writing a log line never throws: what
// JSON cannot hold (bytes, cycles, BigInt, a getter or toJSON that throws) becomes a marker string.
import pino from 'pino';

export const circularMarker = '[Circular]';
export const unreadableMarker = '[Unreadable]';
export const tooDeepMarker = '[Too deep]';
/** Deeper than this, an object is logged as tooDeepMarker (a socket or a client holds whole graphs). */
const maxDepth = 12;

/** Never throws. Errors become pino's error shape (type, message, stack, their own fields). */
export function loggableValue(value: unknown): unknown {
  return copy(value, [], 0);
}

function copy(value: unknown, ancestors: object[], depth: number): unknown {
  switch (typeof value) {
    case 'bigint':
      // As text: a JSON number would lose the digits past 2^53.
      return value.toString();
    case 'symbol':
      return value.toString();
    case 'function':
      return undefined;
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (ancestors.includes(value)) return circularMarker;
  if (depth >= maxDepth) return tooDeepMarker;
  try {
    return copyObject(value, [...ancestors, value], depth);
  } catch {
    return unreadableMarker;
  }
}

function copyObject(value: object, ancestors: object[], depth: number): unknown {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) {
    return `[${value.constructor.name} ${value.byteLength} bytes]`;
  }
  if (value instanceof Error) return copyFields(pino.stdSerializers.err(value), ancestors, depth);
  if (Array.isArray(value)) return value.map((item) => copy(item, ancestors, depth + 1) ?? null);
  if (value instanceof Map) {
    return copyFields(Object.fromEntries([...value].map(([k, v]) => [String(k), v])), ancestors, depth);
  }
  if (value instanceof Set) return [...value].map((item) => copy(item, ancestors, depth + 1) ?? null);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copy(toJSON.call(value), ancestors, depth + 1);
  return copyFields(value, ancestors, depth);
}

function copyFields(value: object, ancestors: object[], depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of Object.keys(value)) {
    let inner: unknown;
    try {
      inner = (value as Record<string, unknown>)[field];
    } catch {
      result[field] = unreadableMarker;
      continue;
    }
    const copied = copy(inner, ancestors, depth + 1);
    if (copied !== undefined) result[field] = copied;
  }
  return result;
}
