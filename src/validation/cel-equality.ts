// CEL equality as the API server defines it for schema-backed values: a list with x-kubernetes-list-type
// set or map is equal to another regardless of order (maps lists match entries by their keys); every other
// list compares in order. Registered in place of CEL's == and != (cel-env.ts).
import { equals as equalMessages } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { celFunc, CelScalar, isCelList, isCelMap, isCelUint, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { listTypeKey, type ListType } from './cel-value.ts';

/** The list type a bound array was tagged with; lists built inside an expression are atomic. */
function listTypeOf(list: CelList): ListType | undefined {
  // @bufbuild/cel 0.6 wraps a bound array without copying it, as `_array`.
  const array = (list as unknown as { _array?: unknown })._array;
  return Array.isArray(array) ? (array as unknown as Record<symbol, ListType | undefined>)[listTypeKey] : undefined;
}

function sameKeys(a: CelValue, b: CelValue, keys: string[]): boolean {
  if (!isCelMap(a) || !isCelMap(b)) return false;
  return keys.every((k) => {
    const x = a.get(k);
    const y = b.get(k);
    return x === undefined ? y === undefined : y !== undefined && kubernetesEquals(x, y);
  });
}

function listsEqual(a: CelList, b: CelList): boolean {
  if (a.size !== b.size) return false;
  const type = listTypeOf(a) ?? listTypeOf(b);
  const right = [...b];
  if (type?.type === 'set') return [...a].every((x) => right.some((y) => kubernetesEquals(x, y)));
  if (type?.type === 'map') {
    return [...a].every((x) => {
      const y = right.find((candidate) => sameKeys(x, candidate, type.keys));
      return y !== undefined && kubernetesEquals(x, y);
    });
  }
  let i = 0;
  for (const x of a) if (!kubernetesEquals(x, right[i++]!)) return false;
  return true;
}

export function kubernetesEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  const l = isCelUint(a) ? a.value : a;
  const r = isCelUint(b) ? b.value : b;
  if ((typeof l === 'number' || typeof l === 'bigint') && (typeof r === 'number' || typeof r === 'bigint')) return l == r;
  if (isCelList(l)) return isCelList(r) && listsEqual(l, r);
  if (isCelMap(l)) {
    if (!isCelMap(r) || l.size !== r.size) return false;
    for (const [k, v] of l) {
      const w = r.get(k);
      if (w === undefined || !kubernetesEquals(v, w)) return false;
    }
    return true;
  }
  if (l instanceof Uint8Array) return r instanceof Uint8Array && l.length === r.length && l.every((x, i) => x === r[i]);
  if (isReflectMessage(l)) {
    return isReflectMessage(r) && l.desc.typeName === r.desc.typeName && equalMessages(l.desc, l.message, r.message);
  }
  return false;
}

export const equalityFunctions: CelFunc[] = [
  celFunc('_==_', [CelScalar.DYN, CelScalar.DYN], CelScalar.BOOL, (a, b) => kubernetesEquals(a, b)),
  celFunc('_!=_', [CelScalar.DYN, CelScalar.DYN], CelScalar.BOOL, (a, b) => !kubernetesEquals(a, b)),
];
