// CoderWorkspace and CoderTemplate as this server serves them, built from Coder's answers only
// (reference §2.2, §2.3): Kubernetes-only metadata (labels set by a client, managedFields, ...) is
// never stored, so never returned.
import { createHash } from 'node:crypto';
import type { Schemas } from '../../coder/api-types.ts';
import { groupVersion } from '../status.ts';

export interface AggregatedMeta {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
}

export interface CoderWorkspaceObject {
  apiVersion: string;
  kind: 'CoderWorkspace';
  metadata: AggregatedMeta;
  spec: {
    organization: string;
    templateName: string;
    templateVersionID?: string;
    running: boolean;
    ttlMillis?: number;
    autostartSchedule?: string;
  };
  status?: {
    id?: string;
    ownerName?: string;
    organizationName?: string;
    templateName?: string;
    latestBuildID?: string;
    latestBuildStatus?: string;
    autoShutdown?: string;
    lastUsedAt?: string;
  };
}

export interface CoderTemplateObject {
  apiVersion: string;
  kind: 'CoderTemplate';
  metadata: AggregatedMeta;
  spec: {
    organization: string;
    versionID: string;
    displayName?: string;
    description?: string;
    icon?: string;
    running?: boolean;
    /** On get only; outside the resourceVersion, which the active version id already covers. */
    files?: Record<string, string>;
  };
  status?: { id?: string; organizationName?: string; activeVersionID?: string; deprecated?: boolean; updatedAt?: string };
}

export interface CoderTemplateVersionObject {
  apiVersion: string;
  kind: 'CoderTemplateVersion';
  metadata: AggregatedMeta;
  spec: { organization: string; templateName: string; message?: string };
  status: {
    id: string;
    templateID?: string;
    active: boolean;
    archived: boolean;
    createdBy?: string;
    updatedAt?: string;
    job: { status: string; errorCode?: string; startedAt?: string; completedAt?: string };
  };
}

export type AggregatedObject = CoderWorkspaceObject | CoderTemplateObject | CoderTemplateVersionObject;

/** metav1.Time: RFC 3339 in whole seconds, UTC. */
export function kubeTime(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || date.getTime() <= 0) return undefined;
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Labels a client may select on: the name's parts, so `-l aggregation.coder.com/owner=alice` works. */
function nameLabels(parts: Record<string, string | undefined>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(parts))
    if (v && /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(v)) labels[`aggregation.coder.com/${k}`] = v;
  return labels;
}

/** The full SHA-256 of the object without its resourceVersion, as [N] does: any change in spec or status changes it. */
function withFingerprint<T extends AggregatedObject>(obj: T): T {
  const { resourceVersion: _, ...metadata } = obj.metadata;
  const digest = createHash('sha256')
    .update(JSON.stringify({ ...obj, metadata }))
    .digest('hex');
  obj.metadata.resourceVersion = digest;
  return obj;
}

const runningStatuses = new Set(['pending', 'starting', 'running']);

export function workspaceObject(ws: Schemas['Workspace'], namespace: string): CoderWorkspaceObject {
  const build = ws.latest_build;
  const org = ws.organization_name ?? '';
  const owner = ws.owner_name ?? '';
  const deadline = kubeTime(build?.deadline ?? undefined);
  return withFingerprint({
    apiVersion: groupVersion,
    kind: 'CoderWorkspace',
    metadata: {
      name: `${org}.${owner}.${ws.name}`,
      namespace,
      uid: ws.id,
      creationTimestamp: kubeTime(ws.created_at),
      labels: nameLabels({ organization: org, owner, template: ws.template_name }),
    },
    spec: {
      organization: org,
      templateName: ws.template_name ?? '',
      templateVersionID: build?.template_version_id,
      running: build?.transition === 'start' && runningStatuses.has(build?.status ?? ''),
      ...(typeof ws.ttl_ms === 'number' ? { ttlMillis: ws.ttl_ms } : {}),
      ...(ws.autostart_schedule ? { autostartSchedule: ws.autostart_schedule } : {}),
    },
    status: {
      id: ws.id,
      ownerName: owner,
      organizationName: org,
      templateName: ws.template_name,
      latestBuildID: build?.id,
      latestBuildStatus: build?.status,
      ...(deadline ? { autoShutdown: deadline } : {}),
      lastUsedAt: kubeTime(ws.last_used_at),
    },
  });
}

export function templateObject(t: Schemas['Template'], namespace: string): CoderTemplateObject {
  const org = t.organization_name ?? '';
  return withFingerprint({
    apiVersion: groupVersion,
    kind: 'CoderTemplate',
    metadata: {
      name: `${org}.${t.name}`,
      namespace,
      uid: t.id,
      creationTimestamp: kubeTime(t.created_at),
      labels: nameLabels({ organization: org }),
    },
    spec: {
      organization: org,
      versionID: t.active_version_id,
      ...(t.display_name ? { displayName: t.display_name } : {}),
      ...(t.description ? { description: t.description } : {}),
      ...(t.icon ? { icon: t.icon } : {}),
    },
    status: {
      id: t.id,
      organizationName: org,
      activeVersionID: t.active_version_id,
      deprecated: t.deprecated ?? false,
      updatedAt: kubeTime(t.updated_at),
    },
  });
}

/** A version of `template`, named `<org>.<template>.<version>` (reference §2.3); the job's error text is left out. */
export function templateVersionObject(
  v: Schemas['TemplateVersion'],
  template: Schemas['Template'],
  namespace: string,
): CoderTemplateVersionObject {
  const org = template.organization_name ?? '';
  const job = v.job;
  return withFingerprint({
    apiVersion: groupVersion,
    kind: 'CoderTemplateVersion',
    metadata: {
      name: `${org}.${template.name}.${v.name}`,
      namespace,
      uid: v.id,
      creationTimestamp: kubeTime(v.created_at),
      labels: nameLabels({ organization: org, template: template.name }),
    },
    spec: { organization: org, templateName: template.name, ...(v.message ? { message: v.message } : {}) },
    status: {
      id: v.id,
      ...(v.template_id ? { templateID: v.template_id } : {}),
      active: template.active_version_id === v.id,
      archived: v.archived ?? false,
      ...(v.created_by?.username ? { createdBy: v.created_by.username } : {}),
      ...(kubeTime(v.updated_at) ? { updatedAt: kubeTime(v.updated_at) } : {}),
      job: {
        status: job.status,
        ...(job.error_code ? { errorCode: job.error_code } : {}),
        ...(kubeTime(job.started_at) ? { startedAt: kubeTime(job.started_at) } : {}),
        ...(kubeTime(job.completed_at) ? { completedAt: kubeTime(job.completed_at) } : {}),
      },
    },
  });
}

/** `<org>.<owner>.<workspace>` or `<org>.<template>`, checked as the Go original does (reference §2.4). */
export function parseName(kind: 'workspace' | 'template', name: string): string[] {
  const want = kind === 'workspace' ? 3 : 2;
  if (!name) throw new Error(`invalid ${kind} name: name must not be empty`);
  const parts = name.split('.');
  if (parts.length !== want) throw new Error(`invalid ${kind} name "${name}": expected ${want - 1} separators (".")`);
  const empty = parts.findIndex((p) => p === '');
  if (empty >= 0) throw new Error(`invalid ${kind} name "${name}": segment ${empty} must not be empty`);
  return parts;
}
