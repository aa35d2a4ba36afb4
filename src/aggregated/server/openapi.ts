// OpenAPI v2 and v3 of the group (reference R24), so `kubectl explain` and the kube-apiserver's
// aggregated OpenAPI know the kinds. Schemas only; the field descriptions are the users' documentation.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiStatusError, group, groupVersion, version } from '../status.ts';
import { sendJson } from './response.ts';

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
          versionID: str('The active template version (UUID): at creation without files, an imported version; read-only after.'),
          displayName: str('The human-friendly name.'),
          description: str('The description.'),
          icon: str('The icon URL.'),
          running: bool('Legacy; ignored.'),
          files: {
            type: 'object',
            description:
              'Template source files by path, UTF-8 text (shown on get, not on list). A change uploads them as a new version, waits for its import and makes it active; binary files of the archive are kept.',
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
    [`${prefix}.CoderTemplateVersion`]: kindSchema(
      'CoderTemplateVersion',
      'A version of a Coder template, named <organization>.<template>.<version>; read only.',
      {
        type: 'object',
        description: 'The version.',
        properties: {
          organization: str('The organization.'),
          templateName: str('The template.'),
          message: str('The version message.'),
        },
      },
      {
        type: 'object',
        description: 'What Coder reports.',
        properties: {
          id: str('The Coder template version id.'),
          templateID: str('The Coder template id.'),
          active: bool("Whether it is the template's active version."),
          archived: bool('Whether it is archived.'),
          createdBy: str('Who created it.'),
          updatedAt: { type: 'string', format: 'date-time', description: 'When it last changed.' },
          job: {
            type: 'object',
            description: 'The import job.',
            properties: {
              status: str('pending, running, succeeded, canceling, canceled, failed or unknown.'),
              errorCode: str('The error code of a failed import.'),
              startedAt: { type: 'string', format: 'date-time', description: 'When the import started.' },
              completedAt: { type: 'string', format: 'date-time', description: 'When the import ended.' },
            },
          },
        },
      },
      ref,
    ),
    [`${prefix}.CoderTemplateVersionList`]: listSchema('CoderTemplateVersion', ref),
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

/** The schema of `kind` and the schemas it refers to, with `$ref` the bare definition name (field-validation.ts). */
export function schemaOfKind(kind: string): { root: Schema; definitions: Record<string, Schema> } {
  const definitions = schemas((name) => name);
  return { root: definitions[`${prefix}.${kind}`]!, definitions };
}

const resources = [
  { plural: 'coderworkspaces', kind: 'CoderWorkspace', readOnly: false },
  { plural: 'codertemplates', kind: 'CoderTemplate', readOnly: false },
  { plural: 'codertemplateversions', kind: 'CoderTemplateVersion', readOnly: true },
];

/**
 * The operations of each resource, so clients find the kind of a resource from its path (kubectl explain)
 * and see that writes take fieldValidation and fieldManager (kubectl then leaves validation to the server).
 */
function paths(v3: boolean): Record<string, unknown> {
  const ref = (name: string) => (v3 ? `#/components/schemas/${name}` : `#/definitions/${name}`);
  const body = (name: string, description: string) =>
    v3 ? { description, content: { 'application/json': { schema: { $ref: ref(name) } } } } : { description, schema: { $ref: ref(name) } };
  const query = (name: string, description: string) =>
    v3
      ? { name, in: 'query', description, schema: { type: 'string' }, required: false }
      : { name, in: 'query', description, type: 'string', required: false };
  const pathParam = (name: string) =>
    v3 ? { name, in: 'path', required: true, schema: { type: 'string' } } : { name, in: 'path', required: true, type: 'string' };
  const writeParams = [
    query('dryRun', 'Refused: server-side dry-run is not supported.'),
    query('fieldManager', 'The manager name; required for apply patches.'),
    query('fieldValidation', 'Strict, Warn or Ignore.'),
  ];
  const patchBody = v3
    ? {
        requestBody: {
          required: true,
          content: Object.fromEntries(
            [
              'application/apply-patch+yaml',
              'application/json-patch+json',
              'application/merge-patch+json',
              'application/strategic-merge-patch+json',
            ].map((t) => [t, { schema: { type: 'object' } }]),
          ),
        },
      }
    : {};
  const out: Record<string, unknown> = {};
  for (const { plural, kind, readOnly } of resources) {
    const gvk = { group, version, kind };
    const op = (action: string, verb: string, schema: string, extra: object = {}) => ({
      operationId: `${verb}${kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      responses: { '200': body(schema, 'OK') },
      ...(v3 ? {} : { produces: ['application/json'], consumes: ['application/json'] }),
      ...extra,
    });
    out[`/apis/${group}/${version}/${plural}`] = { get: op('list', 'list', `${prefix}.${kind}List`) };
    if (readOnly) {
      out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}`] = {
        parameters: [pathParam('namespace')],
        get: op('list', 'listNamespaced', `${prefix}.${kind}List`),
      };
      out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}/{name}`] = {
        parameters: [pathParam('namespace'), pathParam('name')],
        get: op('get', 'readNamespaced', `${prefix}.${kind}`),
      };
      continue;
    }
    out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}`] = {
      parameters: [pathParam('namespace')],
      get: op('list', 'listNamespaced', `${prefix}.${kind}List`),
      post: op('post', 'createNamespaced', `${prefix}.${kind}`, { parameters: writeParams }),
    };
    out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}/{name}`] = {
      parameters: [pathParam('namespace'), pathParam('name')],
      get: op('get', 'readNamespaced', `${prefix}.${kind}`),
      put: op('put', 'replaceNamespaced', `${prefix}.${kind}`, { parameters: writeParams }),
      patch: op('patch', 'patchNamespaced', `${prefix}.${kind}`, {
        parameters: [...writeParams, query('force', 'Force an apply patch.')],
        ...patchBody,
      }),
      delete: op('delete', 'deleteNamespaced', `${prefix}.${kind}`),
    };
  }
  return out;
}

export function openApiV2(): object {
  return {
    swagger: '2.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: paths(false),
    definitions: schemas((name) => `#/definitions/${name}`),
  };
}

export function openApiV3Document(): object {
  return {
    openapi: '3.0.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: paths(true),
    components: { schemas: schemas((name) => `#/components/schemas/${name}`) },
  };
}

const v3Path = `apis/${groupVersion}`;
const v3Hash = createHash('sha512').update(JSON.stringify(openApiV3Document())).digest('hex').slice(0, 32);

export function openApiV3Index(): object {
  return { paths: { [v3Path]: { serverRelativeURL: `/openapi/v3/${v3Path}?hash=${v3Hash}` } } };
}

export function serveOpenApi(req: IncomingMessage, res: ServerResponse, doc: 'v2' | 'v3' | 'v3group'): void {
  // Protobuf is not served: 406 makes clients ask again for JSON.
  if (!/application\/json|application\/\*|\*\/\*/.test(req.headers.accept ?? '*/*'))
    throw new ApiStatusError(406, 'NotAcceptable', 'the OpenAPI documents are served as application/json only');
  sendJson(res, 200, doc === 'v2' ? openApiV2() : doc === 'v3' ? openApiV3Index() : openApiV3Document());
}
