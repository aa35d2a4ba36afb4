// OpenAPI v2 and v3 of the group, so `kubectl explain` and the kube-apiserver's
// aggregated OpenAPI know the kinds: the definitions generated from schemas/aggregated/ (the field
// descriptions are the users' documentation), and the operations of each resource's verbs.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { aggregatedOpenApiDefinitions } from '../../../generated/aggregated/openapi.ts';
import { aggregatedResources } from '../../../generated/aggregated/resources.ts';
import { ApiStatusError, group, groupVersion, version } from '../status.ts';
import { sendJson } from './response.ts';

type Schema = Record<string, unknown>;

/** The generated definitions with each `$ref` made a reference into the document: `ref(name)`. */
function definitions(ref: (name: string) => string): Record<string, Schema> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' ? ref(v as string) : walk(v)]));
  };
  return walk(aggregatedOpenApiDefinitions) as Record<string, Schema>;
}

/** The schema of `kind` and the schemas it refers to, with `$ref` the bare definition name (field-validation.ts). */
export function schemaOfKind(kind: string): { root: Schema; definitions: Record<string, Schema> } {
  const resource = aggregatedResources.find((r) => r.names.kind === kind)!;
  return { root: aggregatedOpenApiDefinitions[resource.openApi.kind]!, definitions: aggregatedOpenApiDefinitions };
}

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
  for (const { names, verbs, openApi } of aggregatedResources) {
    const { plural, kind } = names;
    const readOnly = !verbs.includes('create');
    const gvk = { group, version, kind };
    const op = (action: string, verb: string, schema: string, extra: object = {}) => ({
      operationId: `${verb}${kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      responses: { '200': body(schema, 'OK') },
      ...(v3 ? {} : { produces: ['application/json'], consumes: ['application/json'] }),
      ...extra,
    });
    out[`/apis/${group}/${version}/${plural}`] = { get: op('list', 'list', openApi.list) };
    if (readOnly) {
      out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}`] = {
        parameters: [pathParam('namespace')],
        get: op('list', 'listNamespaced', openApi.list),
      };
      out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}/{name}`] = {
        parameters: [pathParam('namespace'), pathParam('name')],
        get: op('get', 'readNamespaced', openApi.kind),
      };
      continue;
    }
    out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}`] = {
      parameters: [pathParam('namespace')],
      get: op('list', 'listNamespaced', openApi.list),
      post: op('post', 'createNamespaced', openApi.kind, { parameters: writeParams }),
    };
    out[`/apis/${group}/${version}/namespaces/{namespace}/${plural}/{name}`] = {
      parameters: [pathParam('namespace'), pathParam('name')],
      get: op('get', 'readNamespaced', openApi.kind),
      put: op('put', 'replaceNamespaced', openApi.kind, { parameters: writeParams }),
      patch: op('patch', 'patchNamespaced', openApi.kind, {
        parameters: [...writeParams, query('force', 'Force an apply patch.')],
        ...patchBody,
      }),
      delete: op('delete', 'deleteNamespaced', openApi.kind),
    };
  }
  return out;
}

export function openApiV2(): object {
  return {
    swagger: '2.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: paths(false),
    definitions: definitions((name) => `#/definitions/${name}`),
  };
}

export function openApiV3Document(): object {
  return {
    openapi: '3.0.0',
    info: { title: 'coder-k8s aggregated API', version: groupVersion },
    paths: paths(true),
    components: { schemas: definitions((name) => `#/components/schemas/${name}`) },
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
