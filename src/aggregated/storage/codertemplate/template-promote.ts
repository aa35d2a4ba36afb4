// codertemplates/promote: make an imported version of the template its active one,
// and confirm Coder did.
import type { Schemas } from '../../../coder/api-types.ts';
import type { CoderTarget } from '../../backend.ts';
import type { CoderCall } from '../coder-errors.ts';
import { ApiStatusError, badRequest, groupVersion, unavailable } from '../../status.ts';
import type { Subresource } from '../storage.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the template storage lends the subresource. */
export interface TemplateAccess {
  lookup(namespace: string, name: string): Promise<{ target: CoderTarget; template: Schemas['Template'] }>;
  readonly call: CoderCall;
  /** The active version changed: lists are stale and watchers hear of the template as it is now. */
  changed(namespace: string, template: Schemas['Template']): void;
}

export function promoteSubresource(access: TemplateAccess): Subresource {
  return {
    verb: 'create',
    async serve({ namespace, name, body, dryRun }) {
      const versionID = body?.spec?.versionID;
      if (typeof versionID !== 'string' || !uuid.test(versionID))
        throw new ApiStatusError(422, 'Invalid', `spec.versionID: must be the UUID of a template version, got "${versionID ?? ''}"`);
      const answer = (result: string, active: string) => ({
        code: 201,
        json: {
          apiVersion: groupVersion,
          kind: 'CoderTemplatePromotion',
          metadata: { name, namespace },
          spec: { versionID },
          status: { result, activeVersionID: active },
        },
      });
      const { target, template } = await access.lookup(namespace, name);
      if (template.active_version_id === versionID) return answer('AlreadyActive', versionID);
      const notOurs = badRequest(`template version "${versionID}" is not a version of template "${name}"`);
      const version = await access
        .call(target, name, () =>
          target.client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: versionID } }),
        )
        .catch((err: unknown) => {
          throw err instanceof ApiStatusError && err.code === 404 ? notOurs : err;
        });
      if (version.template_id !== template.id) throw notOurs;
      if (version.job.status !== 'succeeded')
        throw badRequest(`template version "${versionID}" cannot be promoted: its import is ${version.job.status}, not succeeded`);
      if (dryRun) return answer('WouldPromote', template.active_version_id);
      await access.call(target, name, () =>
        target.client.request('PATCH', '/api/v2/templates/{template}/versions', {
          params: { template: template.id },
          body: { id: versionID },
        }),
      );
      const after = await access.call(target, name, () =>
        target.client.request('GET', '/api/v2/templates/{template}', { params: { template: template.id } }),
      );
      if (after.active_version_id !== versionID)
        throw unavailable(
          `promoting template version "${versionID}" was not confirmed: Coder still reports "${after.active_version_id}" as active`,
        );
      access.changed(namespace, { ...template, ...after, organization_name: template.organization_name });
      return answer('Promoted', versionID);
    },
  };
}
