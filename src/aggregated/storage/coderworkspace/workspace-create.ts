// The Coder calls of a CoderWorkspace create: the organization and template named in the
// spec, the template version when one is asked for (it must be the template's), then the workspace itself.
import type { Schemas } from '../../../coder/api-types.ts';
import { isUnknownUser } from '../../../coder/error-predicates.ts';
import type { CoderWorkspaceSpec } from '../../../../generated/aggregated/types.ts';
import type { CoderTarget } from '../../backend.ts';
import { badRequest } from '../../status.ts';
import { kubernetesError } from '../coder-errors.ts';
import type { WorkspaceAccess } from './workspace-access.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The parts of the object's name `<org>.<owner>.<workspace>`, and the name itself for messages. */
export interface WorkspaceName {
  name: string;
  org: string;
  owner: string;
  workspace: string;
}

/** The workspace Coder created from `spec` (its organization and templateName checked by the caller). */
export async function createWorkspace(
  access: Pick<WorkspaceAccess, 'call'>,
  target: CoderTarget,
  { name, org, owner, workspace }: WorkspaceName,
  spec: Partial<CoderWorkspaceSpec> & { templateName: string },
): Promise<Schemas['Workspace']> {
  const organization = await access.call(target, name, () =>
    target.client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: org } }),
  );
  const template = await (async () => {
    try {
      return await target.client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
        params: { organization: organization.id, templateName: spec.templateName },
      });
    } catch (err) {
      throw kubernetesError(err, { resource: 'codertemplates', name: `${org}.${spec.templateName}`, backend: target.label });
    }
  })();
  const wantedVersion = spec.templateVersionID;
  if (wantedVersion) {
    if (!uuid.test(wantedVersion)) throw badRequest(`invalid workspace spec: invalid templateVersionID "${wantedVersion}": not a UUID`);
    const version = await access.call(target, name, () =>
      target.client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: wantedVersion } }),
    );
    if (version.template_id !== template.id)
      throw badRequest(`spec.templateVersionID "${wantedVersion}" does not belong to template "${spec.templateName}"`);
  }
  return access.call(target, name, () =>
    target.client
      .request('POST', '/api/v2/users/{user}/workspaces', {
        params: { user: owner },
        body: {
          name: workspace,
          ...(wantedVersion ? { template_version_id: wantedVersion } : { template_id: template.id }),
          ...(typeof spec.ttlMillis === 'number' ? { ttl_ms: spec.ttlMillis } : {}),
          ...(spec.autostartSchedule ? { autostart_schedule: spec.autostartSchedule } : {}),
        },
      })
      .catch((err: unknown) => {
        if (isUnknownUser(err)) throw badRequest(`owner "${owner}" parsed from metadata.name is not a user in Coder`);
        throw err;
      }),
  );
}
