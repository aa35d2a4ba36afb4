// Template sources in the double's one world, as Coder answers them: uploaded files (stored as sent, found
// again by their content), template versions whose import job moves one step per read of the version,
// templates made from a version of no template yet, their metadata, their versions and which one is active.
import { createHash, randomUUID } from 'node:crypto';
import type { components } from '../../../generated/coder-api.ts';
import type { Answer, Handler } from './handlers.ts';
import type { CoderApiDoubleState } from './state.ts';
import { newTemplateSettings, patchTemplateMeta } from './template-meta.ts';
import { organizationOfParam } from './workspace-world.ts';

type Schemas = components['schemas'];

const notFound: Answer = { status: 404, body: { message: 'Resource not found or you do not have access to this resource' } };
const now = () => new Date().toISOString();

/** The template_id Coder answers for a version of no template (coder/coder v2.26.1 coderd/templateversions.go convertTemplateVersion). */
const noTemplate = '00000000-0000-0000-0000-000000000000';

/**
 * The ids of the examples built into coder/coder v2.26.1 (examples/examples.gen.json), which
 * postTemplateVersionsByOrganization copies into a file. The double holds none of their archives.
 */
const coderExamples = new Set([
  'aws-devcontainer',
  'aws-linux',
  'aws-windows',
  'azure-linux',
  'digitalocean-linux',
  'docker',
  'docker-devcontainer',
  'docker-envbuilder',
  'gcp-devcontainer',
  'gcp-linux',
  'gcp-vm-container',
  'gcp-windows',
  'kubernetes',
  'kubernetes-devcontainer',
  'nomad-docker',
  'scratch',
]);

/** Coder's 409 of a name another row holds (coderd/templates.go, coderd/templateversions.go). */
const nameTaken = (message: string): Answer => ({
  status: 409,
  body: { message, validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }] },
});

/** The one provisioner daemon the double models: it takes every import at once. */
const doubleProvisionerId = 'a7d0c9e4-5b1f-4c3a-9e8d-2f6b1a0c4d7e';

/**
 * One read of a version created through the API while it imports: pending → running → succeeded, or failed
 * when the world says the import fails, or canceled after a cancel while it ran. A seeded version keeps the
 * job a test gave it.
 */
export function advanceImport(state: CoderApiDoubleState, version: Schemas['TemplateVersion']): void {
  if (!state.world.importing.has(version.id) || state.world.importsHeld) return;
  const job = version.job;
  if (job.status === 'pending') {
    // Coder answers matched_provisioners only while the job is pending (coderd/templateversions.go templateVersion).
    delete version.matched_provisioners;
    version.job = { ...job, status: 'running', started_at: now(), worker_id: doubleProvisionerId };
    return;
  }
  const failure = state.world.importFailures.get(version.id);
  version.job =
    job.status === 'canceling'
      ? { ...job, status: 'canceled', completed_at: now() }
      : failure
        ? { ...job, status: 'failed', completed_at: now(), error: failure }
        : { ...job, status: 'succeeded', completed_at: now() };
  state.world.importing.delete(version.id);
}

export const templateHandlers: Readonly<Record<string, Handler>> = {
  // coder/coder v2.26.1 coderd/files.go postFile (the same content answers 200 with the existing id)
  uploadFile: ({ state, body }) => {
    const data = Buffer.from(body as Uint8Array);
    const hash = createHash('sha256').update(data).digest('hex');
    const existing = [...state.world.files].find(([, f]) => f.hash === hash);
    if (existing) return { status: 200, body: { hash: existing[0] } };
    const id = randomUUID();
    state.world.files.set(id, { hash, data });
    return { status: 201, body: { hash: id } };
  },

  // coder/coder v2.26.1 coderd/files.go fileByID
  downloadFile: ({ state, params }) => {
    const file = state.world.files.get(String(params.fileID));
    if (!file) return notFound;
    if (params.format === 'zip') return { status: 400, body: { message: 'The Coder API double serves archives as tar only.' } };
    return { status: 200, body: file.data, headers: { 'Content-Type': 'application/x-tar' } };
  },

  // coder/coder v2.26.1 coderd/templateversions.go postTemplateVersionsByOrganization: the template is looked up
  // by id alone (any organization), then the example or the file; a name the template's versions hold is a 409
  // (the unique key template_versions_template_id_name_key, coderd/database/dump.sql).
  createTemplateVersion: ({ state, params, body, user }) => {
    const organization = organizationOfParam(state.world, String(params.organization));
    if (!organization) return notFound;
    const request = body as Schemas['CreateTemplateVersionRequest'];
    if (request.template_id && !state.world.templates.some((t) => t.id === request.template_id))
      return { status: 404, body: { message: 'Template does not exist.' } };
    if (request.example_id !== undefined) {
      // coder/coder v2.26.1 examples/examples.go Archive: the error of an id that names no example.
      if (!coderExamples.has(request.example_id))
        return {
          status: 400,
          body: {
            message: 'Example not found.',
            detail: `example with id ${JSON.stringify(request.example_id)} not found: example not found`,
          },
        };
      return { status: 400, body: { message: `The Coder API double holds no archive of Coder's example "${request.example_id}".` } };
    }
    if (!state.world.files.has(request.file_id!)) return { status: 404, body: { message: 'File not found.' } };
    // Coder names an unnamed version at random (namesgenerator.GetRandomName); the double counts.
    const name = request.name || `v${state.world.templateVersions.length + 1}`;
    if (request.template_id && state.world.templateVersions.some((v) => v.template_id === request.template_id && v.name === name))
      return nameTaken(`A template version with name ${JSON.stringify(name)} already exists for this template.`);
    const at = now();
    const version: Schemas['TemplateVersion'] = {
      id: randomUUID(),
      template_id: request.template_id ?? noTemplate,
      organization_id: organization.id,
      name,
      message: request.message ?? '',
      created_at: at,
      updated_at: at,
      archived: false,
      created_by: { id: user!.id, username: user!.username },
      readme: '',
      // A job as Coder answers it (codersdk ProvisionerJob): the organization scope tags of a template import.
      job: {
        id: randomUUID(),
        created_at: at,
        status: 'pending',
        file_id: request.file_id!,
        tags: { scope: 'organization', owner: '' },
        queue_position: 0,
        queue_size: 0,
        organization_id: organization.id,
      },
      matched_provisioners: { count: 1, available: 1, most_recently_seen: at },
    };
    state.world.provisioners.set(version.id, request.provisioner ?? 'terraform');
    if (state.world.failNextImports.length) state.world.importFailures.set(version.id, state.world.failNextImports.shift()!);
    state.world.templateVersions.push(version);
    state.world.importing.add(version.id);
    return { status: 201, body: version };
  },

  // coder/coder v2.26.1 coderd/templates.go postTemplateByOrganization: a name taken in the organization in any
  // case (coderd/database/queries/templates.sql GetTemplateByOrganizationAndName compares LOWER(name)), then a
  // version that is missing, archived or already part of a template; the version may be of any organization and
  // its import in any state.
  createTemplate: ({ state, params, body }) => {
    const organization = organizationOfParam(state.world, String(params.organization));
    if (!organization) return notFound;
    const request = body as Schemas['CreateTemplateRequest'];
    const lower = request.name.toLowerCase();
    if (state.world.templates.some((t) => t.organization_id === organization.id && t.name.toLowerCase() === lower))
      return nameTaken(`Template with name ${JSON.stringify(request.name)} already exists.`);
    const versionId = request.template_version_id;
    const version = state.world.templateVersions.find((v) => v.id === versionId);
    const refused = (status: number, message: string, detail: string): Answer => ({
      status,
      body: { message, validations: [{ field: 'template_version_id', detail }] },
    });
    if (!version) return refused(404, `Template version ${JSON.stringify(versionId)} does not exist.`, 'Template version does not exist');
    if (version.archived) return refused(400, `Template version ${versionId} is archived.`, 'Template version is archived');
    if (version.template_id && version.template_id !== noTemplate)
      return refused(400, `Template version ${versionId} is already part of a template`, 'Template version is already part of a template');
    const at = now();
    const template: Schemas['Template'] = {
      ...newTemplateSettings,
      id: randomUUID(),
      name: request.name,
      organization_id: organization.id,
      organization_name: organization.name,
      active_version_id: version.id,
      display_name: request.display_name ?? '',
      description: request.description ?? '',
      icon: request.icon ?? '',
      provisioner: state.world.provisioners.get(version.id) ?? 'terraform',
      active_user_count: 0,
      created_at: at,
      updated_at: at,
    };
    version.template_id = template.id;
    state.world.templates.push(template);
    return { status: 201, body: template };
  },

  // coder/coder v2.26.1 coderd/templates.go patchTemplateMeta (template-meta.ts)
  updateTemplateMetadata: ({ state, params, body }) => {
    const template = state.world.templates.find((t) => t.id === params.template);
    if (!template) return notFound;
    return patchTemplateMeta(state, template, body as Schemas['UpdateTemplateMeta']);
  },

  // coder/coder v2.26.1 coderd/templateversions.go templateVersionByOrganizationTemplateAndName
  getTemplateVersionByOrganizationAndName: ({ state, params }) => {
    const organization = organizationOfParam(state.world, String(params.organization));
    const template = state.world.templates.find(
      (t) => t.organization_id === organization?.id && t.name.toLowerCase() === String(params.templateName).toLowerCase(),
    );
    const version = state.world.templateVersions.find((v) => v.template_id === template?.id && v.name === params.templateVersionName);
    return version ? { status: 200, body: version } : notFound;
  },

  // coder/coder v2.26.1 coderd/templateversions.go templateVersionLogs: the import's logs so far (the double's imports log nothing); it streams none.
  listTemplateVersionLogs: ({ state, params }) => {
    if (!state.world.templateVersions.some((v) => v.id === params.templateVersion)) return notFound;
    if (params.follow !== undefined) return { status: 400, body: { message: 'The Coder API double does not stream import logs.' } };
    return { status: 200, body: [] };
  },

  // coder/coder v2.26.1 coderd/templateversions.go patchCancelTemplateVersion: a queued job ends canceled at once, a running one is canceling.
  cancelTemplateVersionImport: ({ state, params }) => {
    const version = state.world.templateVersions.find((v) => v.id === params.templateVersion);
    if (!version) return notFound;
    const job = version.job;
    if (job.completed_at) return { status: 400, body: { message: 'Job has already completed!' } };
    if (job.canceled_at) return { status: 400, body: { message: 'Job has already been marked as canceled!' } };
    const at = now();
    version.job = job.worker_id
      ? { ...job, canceled_at: at, status: 'canceling' }
      : { ...job, canceled_at: at, completed_at: at, status: 'canceled' };
    if (!job.worker_id) state.world.importing.delete(version.id);
    return { status: 200, body: { message: 'Job has been marked as canceled...' } };
  },

  // coder/coder v2.26.1 coderd/templateversions.go templateVersionsByTemplate
  listTemplateVersions: ({ state, params }) => {
    if (!state.world.templates.some((t) => t.id === params.template)) return notFound;
    const versions = state.world.templateVersions.filter(
      (v) => v.template_id === params.template && (params.include_archived === true || !v.archived),
    );
    return { status: 200, body: versions };
  },

  // coder/coder v2.26.1 coderd/templateversions.go patchActiveTemplateVersion: 404 for an unknown version, 400
  // for one of another template, 403 unless its import succeeded, 400 when it is archived.
  updateActiveTemplateVersion: ({ state, params, body }) => {
    const template = state.world.templates.find((t) => t.id === params.template);
    if (!template) return notFound;
    const id = (body as Schemas['UpdateActiveTemplateVersion']).id;
    const version = state.world.templateVersions.find((v) => v.id === id);
    if (!version) return { status: 404, body: { message: 'Template version not found.' } };
    if (version.template_id !== template.id)
      return { status: 400, body: { message: "The provided template version doesn't belong to the specified template." } };
    if (version.job.status !== 'succeeded')
      return {
        status: 403,
        body: {
          message: 'Only versions that have been built successfully can be promoted.',
          detail: `Attempted to promote a version with a ${version.job.status} build`,
        },
      };
    if (version.archived) return { status: 400, body: { message: 'The provided template version is archived.' } };
    template.active_version_id = version.id;
    template.updated_at = now();
    return { status: 200, body: { message: 'Updated the active template version!' } };
  },
};
