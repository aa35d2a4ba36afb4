// The fieldPath of a rule (`.connectionSecretRef.name`, `.annotations['a.b']`): a path relative to the
// rule's node, resolved through the schema into properties and map keys.
import type { Segment } from './field-path.ts';
import type { StructuralNode } from './structural.ts';

const token = /^(?:\.([A-Za-z_$][\w$-]*)|\['((?:[^'\\]|\\.)*)'\])/;

/** The segments of `path` below `schema`, or undefined when it does not name a declared field. */
export function parseRuleFieldPath(path: string, schema: StructuralNode): Segment[] | undefined {
  const segments: Segment[] = [];
  let node: StructuralNode | undefined = schema;
  let rest = path;
  while (rest) {
    const m = token.exec(rest);
    if (!m || !node) return undefined;
    const name = m[1] ?? m[2]!.replace(/\\(.)/g, '$1');
    if (node.properties?.[name]) {
      segments.push({ field: name });
      node = node.properties[name];
    } else if (node.additionalProperties) {
      segments.push({ key: name });
      node = node.additionalProperties;
    } else return undefined;
    rest = rest.slice(m[0].length);
  }
  return segments;
}
