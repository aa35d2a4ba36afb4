// A Coder workspace as a CoderWorkspace: `<org>.<owner>.<workspace>`, running when its latest build starts it.
import type { Schemas } from '../../coder/api-types.ts';
import { groupVersion } from '../status.ts';
import { kubeTime, nameLabels, withFingerprint } from './object-meta.ts';
import type { CoderWorkspace } from '../../../generated/aggregated/types.ts';

const runningStatuses = new Set(['pending', 'starting', 'running']);

export function workspaceObject(ws: Schemas['Workspace'], namespace: string): CoderWorkspace {
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
