// OpenAPI v2 and v3 of the group (reference R24), so `kubectl explain` and the kube-apiserver's
// aggregated OpenAPI know the kinds. Schemas only; the field descriptions are the users' documentation.
import { createHash } from 'node:crypto';
import { group, groupVersion, version } from './status.ts';

const prefix = 'com.coder.aggregation.v1alpha1';
const objectMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const listMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

type Schema = Record<string, unknown>;
const str = (description: string): Schema => ({ type: 'string', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });

function kindSchema(kind: string, description: string, spec: Schema, status: Schema, ref: (name: string) => string): Schema {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: str('aggregation.coder.com/v1alpha1'),
      kind: str(kind),
      metadata: {
        $ref: ref(objectMeta),
        description: 'Built from Coder: name, namespace, uid (the Coder id), resourceVersion, creationTimestamp.',
      },
      spec,
      status,
    },
    'x-kubernetes-group-version-kind': [{ group, version, kind }],
  };
}

function listSchema(kind: string, ref: (name: string) => string): Schema {
  return {
    type: 'object',
    description: `A list of ${kind}.`,
    required: ['items'],
    properties: {
      apiVersion: str('aggregation.coder.com/v1alpha1'),
      kind: str(`${kind}List`),
      metadata: { $ref: ref(listMeta) },
      items: { type: 'array', items: { $ref: ref(`${prefix}.${kind}`) } },
    },
    'x-kubernetes-group-version-kind': [{ group, version, kind: `${kind}List` }],
  };
}

function schemas(ref: (name: string) => string): Record<string, Schema> {
  return {
    [`${prefix}.CoderWorkspace`]: kindSchema(
      'CoderWorkspace',
      'A Coder workspace, named <organization>.<owner>.<workspace>. Nothing is stored in Kubernetes: every call goes to Coder.',
      {
        type: 'object',
        description: 'The workspace. Only spec.running can change after creation.',
        required: ['organization', 'templateName', 'running'],
        properties: {
          organization: str('The organization; must equal the first segment of metadata.name.'),
          templateName: str('The template the workspace is built from.'),
          templateVersionID: str('The template version (UUID); the active version when unset at creation.'),
          running: bool('Whether the workspace runs: true queues a start build, false a stop build.'),
          ttlMillis: { type: 'integer', format: 'int64', description: 'How long the workspace runs before it stops, in milliseconds.' },
          autostartSchedule: str('A cron schedule for automatic starts.'),
        },
      },
      {
        type: 'object',
        description: 'What Coder reports.',
        properties: {
          id: str('The Coder workspace id.'),
          ownerName: str('The owner username.'),
          organizationName: str('The organization name.'),
          templateName: str('The template name.'),
          latestBuildID: str('The latest build id.'),
          latestBuildStatus: str(
            'The latest build status: pending, starting, running, stopping, stopped, failed, canceling, canceled, deleting, deleted.',
          ),
          autoShutdown: { type: 'string', format: 'date-time', description: 'When the running workspace stops.' },
          lastUsedAt: { type: 'string', format: 'date-time', description: 'When the workspace was last used.' },
        },
      },
      ref,
    ),
    [`${prefix}.CoderWorkspaceList`]: listSchema('CoderWorkspace', ref),
    [`${prefix}.CoderTemplate`]: kindSchema(
      'CoderTemplate',
      'A Coder template, named <organization>.<template>. Nothing is stored in Kubernetes: every call goes to Coder.',
      {
        type: 'object',
        description: 'The template.',
        required: ['organization'],
        properties: {
          organization: str('The organization; must equal the first segment of metadata.name.'),
          versionID: str('The active template version (UUID): required at creation, read-only after.'),
          displayName: str('The human-friendly name.'),
          description: str('The description.'),
          icon: str('The icon URL.'),
          running: bool('Legacy; ignored.'),
          files: {
            type: 'object',
            description: 'Template source files by path (not supported by this server yet).',
            additionalProperties: { type: 'string' },
            'x-kubernetes-map-type': 'atomic',
          },
        },
      },
      {
        type: 'object',
        description: 'What Coder reports.',
        properties: {
          id: str('The Coder template id.'),
          organizationName: str('The organization name.'),
          activeVersionID: str('The active version id.'),
          deprecated: bool('Whether the template is deprecated.'),
          updatedAt: { type: 'string', format: 'date-time', description: 'When the template last changed.' },
        },
      },
      ref,
    ),
    [`${prefix}.CoderTemplateList`]: listSchema('CoderTemplate', ref),
    [objectMeta]: {
      type: 'object',
      description: 'Standard object metadata.',
      properties: {
        name: str('The name.'),
        namespace: str('The namespace.'),
        uid: str('The Coder id.'),
        resourceVersion: str('A fingerprint of the object; an update must send the current one.'),
        creationTimestamp: { type: 'string', format: 'date-time', description: 'When Coder created it.' },
        labels: { type: 'object', additionalProperties: { type: 'string' }, description: 'The name segments as labels.' },
        annotations: { type: 'object', additionalProperties: { type: 'string' }, description: 'Not stored.' },
      },
    },
    [listMeta]: {
      type: 'object',
      description: 'Standard list metadata.',
      properties: { resourceVersion: str('The list resource version.') },
    },
  };
}

export function openApiV2(): object {
  return {
    swagger: '2.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: {},
    definitions: schemas((name) => `#/definitions/${name}`),
  };
}

export function openApiV3Document(): object {
  return {
    openapi: '3.0.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: {},
    components: { schemas: schemas((name) => `#/components/schemas/${name}`) },
  };
}

const v3Path = `apis/${groupVersion}`;
const v3Hash = createHash('sha512').update(JSON.stringify(openApiV3Document())).digest('hex').slice(0, 32);

export function openApiV3Index(): object {
  return { paths: { [v3Path]: { serverRelativeURL: `/openapi/v3/${v3Path}?hash=${v3Hash}` } } };
}
