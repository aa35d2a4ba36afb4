// JSON values as CEL sees them in the API server: objects and maps as CEL maps, integers as int (BigInt),
// numbers as double, date and date-time strings as timestamps, lists marked with their x-kubernetes-list-type so
// that equality follows Kubernetes (sets and map lists compare without regard to order).
import { create } from '@bufbuild/protobuf';
import { TimestampSchema, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { StructuralNode } from './structural.ts';

/** The key under which a bound array carries its list type (read by cel-equality.ts). */
export const listTypeKey = Symbol('x-kubernetes-list-type');

export interface ListType {
  type: 'set' | 'map';
  keys: string[];
}

export type CelBound = null | boolean | string | bigint | number | Timestamp | CelBound[] | Map<string, CelBound>;

function timestamp(s: string): Timestamp | string {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return s;
  const fraction = /\.(\d+)/.exec(s)?.[1] ?? '';
  const nanos = Number(fraction.slice(0, 9).padEnd(9, '0'));
  return create(TimestampSchema, { seconds: BigInt(Math.floor(ms / 1000)), nanos });
}

/** Converts `value`, described by `schema`, for binding to self or oldSelf. */
export function toCelValue(value: unknown, schema: StructuralNode | undefined): CelBound {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (schema?.format === 'date-time' || schema?.format === 'date') return timestamp(value);
    return value;
  }
  if (typeof value === 'number') {
    const integer = schema?.type === 'integer' || ((schema?.intOrString || !schema?.type) && Number.isInteger(value));
    return integer && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    const list: CelBound[] = value.map((item) => toCelValue(item, schema?.items));
    if (schema?.listType === 'set' || schema?.listType === 'map') {
      const tag: ListType = { type: schema.listType, keys: schema.listMapKeys ?? [] };
      Object.defineProperty(list, listTypeKey, { value: tag });
    }
    return list;
  }
  const map = new Map<string, CelBound>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    map.set(k, toCelValue(v, schema?.properties?.[k] ?? schema?.additionalProperties));
  }
  return map;
}
