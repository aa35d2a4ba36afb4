// A version of a Coder template as a CoderTemplateVersion, `<org>.<template>.<version>`.
import type { Schemas } from '../../coder/api-types.ts';
import { groupVersion } from '../status.ts';
import { kubeTime, nameLabels, withFingerprint } from './object-meta.ts';
import type { CoderTemplateVersion } from '../../../generated/aggregated/types.ts';

/** A version of `template`, named `<org>.<template>.<version>`; the job's error text is left out. */
export function templateVersionObject(
  v: Schemas['TemplateVersion'],
  template: Schemas['Template'],
  namespace: string,
): CoderTemplateVersion {
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
