// A Coder template as a CoderTemplate, `<org>.<template>`; spec.files is added by the storage (it needs the archive).
import type { Schemas } from '../../coder/api-types.ts';
import { groupVersion } from '../status.ts';
import { kubeTime, nameLabels, withFingerprint } from './object-meta.ts';
import type { CoderTemplate } from '../../../generated/aggregated/types.ts';

export function templateObject(t: Schemas['Template'], namespace: string): CoderTemplate {
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
