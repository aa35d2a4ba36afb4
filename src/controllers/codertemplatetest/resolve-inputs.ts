// A template test's first Coder step, resolve: the tester user and its eligibility, the organization,
// the template and the version, resolved once and pinned in status; then the check that no workspace with
// the test's name exists. Read-only: nothing in Coder changes here.
import type { CoderTemplateTest } from '../../../generated/types/codertemplatetest.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { Schemas } from '../../coder/api-types.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound, isUnknownUser } from '../../coder/error-predicates.ts';
import { once } from './coder-access.ts';
import { CoderAnswerMismatch, expectSame, fail, R, wait, WD, type Step, type TestStatus } from './step.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nilUUID = '00000000-0000-0000-0000-000000000000';
const eligibleOrgRoles = new Set(['organization-member', 'organization-workspace-access']);
const defaultOrganizationKeyword = 'default';

export function isUUID(value: string | undefined | null): value is string {
  return typeof value === 'string' && uuidPattern.test(value) && value !== nilUUID;
}

/** Every input resolved and pinned: the create may be sent with these fields. */
export interface Resolved {
  kind: 'resolved';
  status: Partial<TestStatus>;
}

const notEligible = (why: string) =>
  wait(R.OwnerNotEligible, `The tester user (spec.templateTests.ownerUserID of the control plane) ${why}`);

async function notFoundAs<T>(call: Promise<T>, missing: (err: unknown) => boolean = isCoderNotFound): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
}

/** Why the user may not own test workspaces, or undefined when it may (the newest Go original's rules). */
async function ownerProblem(client: CoderClient, owner: Schemas['User'], signal: AbortSignal): Promise<string | undefined> {
  if (owner.status !== 'active') return `is ${owner.status}, not active.`;
  if (!owner.is_service_account && owner.login_type !== 'password' && owner.login_type !== 'none') {
    return `logs in with ${owner.login_type}: use a service account or a password/none login user.`;
  }
  const siteRoles = (owner.roles ?? []).map((r) => r.name).filter((name) => name !== 'member');
  if (siteRoles.length) return `has the site role ${siteRoles[0]}; only member is allowed.`;
  const orgIds = owner.organization_ids ?? [];
  if (!orgIds.length) return undefined;
  // Coder has no GET of one membership (only POST and DELETE on .../members/{user}); the user's roles route
  // holds every membership's stored roles, at every supported release (coder/coder v2.24.0 to v2.36.0
  // coderd/users.go userRoles).
  const { organization_roles: orgRoles } = await client.request('GET', '/api/v2/users/{user}/roles', {
    params: { user: owner.id },
    ...once(signal),
  });
  for (const orgId of orgIds) {
    const org = await client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: orgId }, ...once(signal) });
    expectSame('organization', orgId, org.id);
    const defaults = (org.default_org_member_roles ?? []).filter((role) => !eligibleOrgRoles.has(role));
    if (defaults.length) return `is in organization ${org.name}, whose members all get the role ${defaults[0]}.`;
    const roles = (orgRoles[orgId] ?? []).filter((name) => !eligibleOrgRoles.has(name));
    if (roles.length) return `has the role ${roles[0]} in organization ${org.name}.`;
  }
  return undefined;
}

async function resolveVersion(
  client: CoderClient,
  test: CoderTemplateTest,
  template: Schemas['Template'],
  signal: AbortSignal,
): Promise<{ kind: 'version'; version: Schemas['TemplateVersion'] } | Step> {
  const pinned = test.status?.templateVersionID;
  const byId = pinned ?? test.spec.version.id ?? (test.spec.version.active ? template.active_version_id : undefined);
  const what = byId ? `version ${byId}` : `version "${test.spec.version.name}"`;
  const version = byId
    ? await notFoundAs(
        client.request('GET', '/api/v2/templateversions/{templateVersion}', { params: { templateVersion: byId }, ...once(signal) }),
      )
    : await notFoundAs(
        client.request('GET', '/api/v2/templates/{template}/versions/{templateVersionName}', {
          params: { template: template.id, templateVersionName: test.spec.version.name! },
          ...once(signal),
        }),
      );
  if (!version) return wait(R.TemplateVersionNotFound, `Template ${test.spec.template} has no ${what}.`);
  if (byId) expectSame('template version', byId, version.id);
  else expectSame('template version name', test.spec.version.name, version.name);
  return { kind: 'version', version };
}

export async function resolveInputs(
  client: CoderClient,
  test: CoderTemplateTest,
  cp: CoderControlPlane,
  workspaceName: string,
  signal: AbortSignal,
): Promise<Step | Resolved> {
  const ownerID = cp.spec?.templateTests?.ownerUserID?.trim();
  if (!isUUID(ownerID)) {
    return wait(
      R.OwnerNotConfigured,
      `CoderControlPlane "${cp.metadata.name}" has no valid spec.templateTests.ownerUserID: set it to the UUID of the Coder user that owns test workspaces.`,
    );
  }
  const owner = await notFoundAs(
    client.request('GET', '/api/v2/users/{user}', { params: { user: ownerID }, ...once(signal) }),
    (err) => isUnknownUser(err) || isCoderNotFound(err),
  );
  if (!owner) return notEligible('does not exist.');
  expectSame('user', ownerID, owner.id);
  const problem = await ownerProblem(client, owner, signal);
  if (problem) return notEligible(problem);

  const [orgName, templateName] = test.spec.template.split('.') as [string, string];
  const org = await notFoundAs(
    client.request('GET', '/api/v2/organizations/{organization}', { params: { organization: orgName }, ...once(signal) }),
  );
  if (!org) return wait(R.TemplateNotFound, `Coder has no organization "${orgName}" (spec.template).`);
  // Coder reads exactly "default" as its default organization (is_default), whatever that one is named
  // ("coder" on a new deployment): coder/coder v2.26.1 coderd/httpmw/organizationparam.go.
  if (orgName === defaultOrganizationKeyword) {
    if (!org.is_default)
      throw new CoderAnswerMismatch(`Coder answered organization "${org.name}", which is not its default one, for "default".`);
  } else expectSame('organization', orgName, org.name);
  if (!(owner.organization_ids ?? []).includes(org.id)) return notEligible(`is not a member of organization ${org.name}.`);

  const template = await notFoundAs(
    client.request('GET', '/api/v2/organizations/{organization}/templates/{templateName}', {
      params: { organization: org.id, templateName },
      ...once(signal),
    }),
  );
  if (!template) return wait(R.TemplateNotFound, `Organization ${org.name} has no template "${templateName}" (spec.template).`);
  expectSame('template', templateName, template.name);
  expectSame('organization of the template', org.id, template.organization_id);
  if (template.deprecated) return fail(R.TemplateDeprecated, `Template ${test.spec.template} is deprecated.`);

  const resolved = await resolveVersion(client, test, template, signal);
  if (resolved.kind !== 'version') return resolved;
  const { version } = resolved;
  const pins: Partial<TestStatus> = {
    organizationID: org.id,
    templateID: template.id,
    ownerID: owner.id,
    workspaceName,
    templateVersionID: version.id,
    templateVersionName: version.name,
  };
  if (version.template_id !== template.id) {
    return fail(R.TemplateVersionMismatch, `Template version ${version.id} belongs to another template than ${test.spec.template}.`, {
      status: pins,
    });
  }
  if (version.archived) return fail(R.TemplateVersionArchived, `Template version ${version.name} is archived.`, { status: pins });
  const job = version.job.status;
  if (job === 'pending' || job === 'running') {
    return wait(R.TemplateVersionImporting, `Template version ${version.name} is importing (job ${job}).`, { status: pins });
  }
  if (job !== 'succeeded')
    return fail(R.TemplateVersionImportFailed, `The import of template version ${version.name} ended ${job}.`, { status: pins });

  const existing = await notFoundAs(
    client.request('GET', '/api/v2/users/{user}/workspace/{workspaceName}', { params: { user: owner.id, workspaceName }, ...once(signal) }),
  );
  if (existing) {
    return fail(R.WorkspaceNameConflict, `A workspace named ${workspaceName} exists already; the test never touches it.`, {
      status: pins,
      workspaceDeleted: { status: 'True', reason: WD.NotCreated, message: 'The controller never sent a workspace create request.' },
    });
  }
  return { kind: 'resolved', status: pins };
}
