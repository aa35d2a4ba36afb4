// Where a field path of a validation error (spec.extraEnv[0].name) is in the YAML it came from: the
// offset of the deepest key or item of the path that the document has, so an unknown field points at
// its key and a field that is missing points at its parent.
import { isMap, isScalar, isSeq, type Node } from 'yaml';

const index = /^\[(\d+)\]/;

/** The key of `node` that `rest` begins with; the longest, as keys (labels, annotations) may hold dots. */
function matchingPair(node: Node, rest: string) {
  if (!isMap(node)) return undefined;
  let best: { key: string; keyNode: Node; value: Node | null } | undefined;
  for (const pair of node.items) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    const ends = rest === key || rest.startsWith(`${key}.`) || rest.startsWith(`${key}[`);
    if (ends && (!best || key.length > best.key.length)) best = { key, keyNode: pair.key, value: (pair.value as Node | null) ?? null };
  }
  return best;
}

/** The offset in the source of the deepest part of `path` found under `root`, or of `root` itself. */
export function pathOffset(root: Node, path: string): number {
  let node: Node | null = root;
  let at = root.range?.[0] ?? 0;
  let rest = path;
  while (rest && node) {
    const item = index.exec(rest);
    if (item) {
      const child: unknown = isSeq(node) ? node.items[Number(item[1])] : undefined;
      if (!child || typeof child !== 'object' || !('range' in child)) break;
      node = child as Node;
      at = node.range?.[0] ?? at;
      rest = rest.slice(item[0].length);
      continue;
    }
    if (rest.startsWith('.')) rest = rest.slice(1);
    const pair = matchingPair(node, rest);
    if (!pair) break;
    at = pair.keyNode.range?.[0] ?? at;
    node = pair.value;
    rest = rest.slice(pair.key.length);
  }
  return at;
}
