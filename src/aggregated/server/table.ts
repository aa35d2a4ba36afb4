// The Table rendering of the served objects (reference R14, R15): the columns `kubectl get` prints for each
// kind, and the rows, with the object, its metadata or nothing as includeObject asks.
import type { AggregatedObject } from '../convert/objects.ts';
import { badRequest } from '../status.ts';
import { partialMetadata } from './negotiation.ts';

interface Column {
  name: string;
  type: string;
  format?: string;
  description: string;
  cell(obj: AggregatedObject): unknown;
}

const nameColumn: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: '<org>.<owner>.<workspace>, <org>.<template> or <org>.<template>.<version>',
  cell: (o) => o.metadata.name,
};
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

const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: 'How long ago Coder created it (metadata.creationTimestamp)',
  cell: (o) => (o.metadata.creationTimestamp ? humanDuration(Date.now() - Date.parse(o.metadata.creationTimestamp)) : '<unknown>'),
};

const columns: Record<string, Column[]> = {
  CoderWorkspace: [
    nameColumn,
    { name: 'Template', type: 'string', description: 'spec.templateName', cell: (o: any) => o.spec.templateName },
    { name: 'Running', type: 'boolean', description: 'spec.running', cell: (o: any) => o.spec.running },
    { name: 'Build', type: 'string', description: 'status.latestBuildStatus', cell: (o: any) => o.status?.latestBuildStatus ?? '' },
    {
      name: 'Auto Shutdown',
      type: 'string',
      priority: 1,
      description: 'status.autoShutdown',
      cell: (o: any) => o.status?.autoShutdown ?? '',
    } as Column,
    ageColumn,
  ],
  CoderTemplate: [
    nameColumn,
    { name: 'Display Name', type: 'string', description: 'spec.displayName', cell: (o: any) => o.spec.displayName ?? '' },
    { name: 'Active Version', type: 'string', description: 'status.activeVersionID', cell: (o: any) => o.status?.activeVersionID ?? '' },
    { name: 'Deprecated', type: 'boolean', description: 'status.deprecated', cell: (o: any) => o.status?.deprecated ?? false },
    ageColumn,
  ],
  CoderTemplateVersion: [
    nameColumn,
    { name: 'Template', type: 'string', description: 'spec.templateName', cell: (o: any) => o.spec.templateName },
    { name: 'Active', type: 'boolean', description: 'status.active', cell: (o: any) => o.status?.active ?? false },
    { name: 'Import', type: 'string', description: 'status.job.status', cell: (o: any) => o.status?.job?.status ?? '' },
    ageColumn,
  ],
};

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
  const cols = columns[options.kind] ?? [nameColumn, ageColumn];
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.resourceVersion ? { resourceVersion: options.resourceVersion } : {},
    ...(options.noHeaders
      ? {}
      : {
          columnDefinitions: cols.map(({ name, type, format, description, ...rest }) => ({
            name,
            type,
            format: format ?? '',
            description,
            priority: (rest as { priority?: number }).priority ?? 0,
          })),
        }),
    rows: objects.map((obj) => ({
      cells: cols.map((c) => c.cell(obj)),
      ...(include === 'None' ? {} : { object: include === 'Object' ? obj : partialMetadata(obj, 'v1') }),
    })),
  };
}
