// The Table rendering of the served objects: the columns `kubectl get` prints for each
// kind (generated from schemas/aggregated/), and the rows, with the object, its metadata or nothing as
// includeObject asks.
import { aggregatedResources, type AggregatedTableColumn } from '../../../generated/aggregated/resources.ts';
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import { badRequest } from '../status.ts';
import { partialMetadata } from './negotiation.ts';

/** A column and the steps of its jsonPath (`.spec.templateName` → spec, templateName), split once. */
type Column = AggregatedTableColumn & { path: string[] };

const columnsByKind = new Map<string, Column[]>(
  aggregatedResources.map((r) => [r.names.kind, r.columns.map((c) => ({ ...c, path: c.jsonPath.split('.').slice(1) }))]),
);

/** kubectl prints cells as given: the age is a short duration, as kube-apiserver's own tables show it. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** The value at `path` of `obj`; undefined when a step is missing. */
function valueAt(obj: AggregatedObject, path: string[]): unknown {
  let node: unknown = obj;
  for (const key of path) node = node === null || typeof node !== 'object' ? undefined : (node as Record<string, unknown>)[key];
  return node;
}

/** A row's cell: the value, '' or false when it is missing; for an age column the time since the date. */
function cell(obj: AggregatedObject, column: Column): unknown {
  const value = valueAt(obj, column.path);
  if (column.cell === 'age') return value ? humanDuration(Date.now() - Date.parse(String(value))) : '<unknown>';
  return value ?? (column.definition.type === 'boolean' ? false : '');
}

export interface TableOptions {
  version: string;
  kind: string;
  includeObject: string | null;
  noHeaders: boolean;
  resourceVersion?: string;
}

export function table(objects: AggregatedObject[], options: TableOptions): object {
  const include = options.includeObject || 'Metadata';
  if (!['None', 'Metadata', 'Object'].includes(include)) throw badRequest(`includeObject=${include}: expected None, Metadata or Object`);
  const cols = columnsByKind.get(options.kind) ?? [];
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.resourceVersion ? { resourceVersion: options.resourceVersion } : {},
    ...(options.noHeaders
      ? {}
      : {
          columnDefinitions: cols.map((c) => c.definition),
        }),
    rows: objects.map((obj) => ({
      cells: cols.map((c) => cell(obj, c)),
      ...(include === 'None' ? {} : { object: include === 'Object' ? obj : partialMetadata(obj, 'v1') }),
    })),
  };
}
