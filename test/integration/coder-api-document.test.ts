// schemas/coder-api/openapi.yaml (the Coder API subset the client is typed from and the double serves)
// against Coder's own API description, coderd/apidoc/swagger.json of each release harness:build keeps:
// the client and the double agree by construction, so this is where a route, field or requirement that
// only our document has shows up. Routes Coder's swagger leaves out (its experimental ones) are listed
// below with the route table that serves them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { coderSourceVersions } from '../harness/binaries.ts';
import { CoderSwagger, elementOf, fieldsOf } from '../harness/coder-swagger.ts';

type Json = Record<string, any>;

const ours: Json = parse(readFileSync(new URL('../../schemas/coder-api/openapi.yaml', import.meta.url), 'utf8'));
const resolveOurs = (ref: string): Json => {
  let node: any = ours;
  for (const part of ref.replace(/^#\//, '').split('/')) node = node?.[part];
  if (!node) throw new Error(`openapi.yaml: no ${ref}`);
  return node;
};
const deref = (x: Json): Json => (typeof x?.$ref === 'string' ? resolveOurs(x.$ref) : x);

/** Routes Coder serves without describing them in swagger.json: the release and file of its route table. */
const undescribed: Record<string, string> = {
  'GET /api/experimental/mcp/servers': 'v2.36.0 coderd/coderd.go',
  'POST /api/experimental/mcp/servers': 'v2.36.0 coderd/coderd.go',
  'GET /api/experimental/mcp/servers/{}': 'v2.36.0 coderd/coderd.go',
  'PATCH /api/experimental/mcp/servers/{}': 'v2.36.0 coderd/coderd.go',
  'DELETE /api/experimental/mcp/servers/{}': 'v2.36.0 coderd/coderd.go',
};

/**
 * Where Coder's swagger.json (written from handler comments) falls short of what its handler does; the
 * document follows the handler, named here.
 */
const swaggerGaps: Record<string, string> = {
  'POST /api/v2/workspaceproxies: response 201: field proxy':
    'enterprise/coderd/workspaceproxy.go answers codersdk.UpdateWorkspaceProxyResponse',
  'POST /api/v2/workspaceproxies: response 201: field proxy_token':
    'enterprise/coderd/workspaceproxy.go answers codersdk.UpdateWorkspaceProxyResponse',
  'PATCH /api/v2/workspaceproxies/{workspaceProxy}: response 200: field proxy':
    'enterprise/coderd/workspaceproxy.go answers codersdk.UpdateWorkspaceProxyResponse',
  'PATCH /api/v2/workspaceproxies/{workspaceProxy}: response 200: field proxy_token':
    'enterprise/coderd/workspaceproxy.go answers codersdk.UpdateWorkspaceProxyResponse',
  'GET /api/v2/files/{fileID}: query parameter format': 'coderd/files.go fileByID reads format (tar or zip)',
  'GET /api/v2/templates: query parameter q':
    'coderd/templates.go fetchTemplates reads q (coderd/searchquery/search.go Templates); its comment documents deprecated:true',
  'GET /api/v2/organizations/{organization}/templates: query parameter q':
    'coderd/templates.go templatesByOrganization is fetchTemplates, which reads q, with the organization of the path',
  'GET /api/v2/users/{user}/roles: response 200: field organization_roles':
    'coderd/users.go userRoles answers codersdk.UserRoles (its comment says codersdk.User; the real server agrees with the handler)',
};

interface Problem {
  route: string;
  detail: string;
}

function compareFields(
  mine: Json | undefined,
  theirs: Json | undefined,
  coder: CoderSwagger,
  where: string,
  { checkRequired }: { checkRequired: boolean },
  problems: string[],
  depth = 0,
): void {
  const a = fieldsOf(elementOf(mine, resolveOurs), resolveOurs);
  const b = fieldsOf(elementOf(theirs, coder.resolve), coder.resolve);
  if (b.properties.size === 0 || depth > 4) return;
  for (const [name, schema] of a.properties) {
    const other = b.properties.get(name);
    if (!other) {
      problems.push(`${where}: field ${name} is not in Coder's type`);
      continue;
    }
    compareFields(schema, other, coder, `${where}.${name}`, { checkRequired }, problems, depth + 1);
  }
  if (checkRequired) {
    for (const name of b.required) if (!a.required.has(name)) problems.push(`${where}: Coder requires ${name}, the document does not`);
  }
}

function problemsOf(releases: CoderSwagger[]): Problem[] {
  const problems: Problem[] = [];
  for (const [path, item] of Object.entries(ours.paths as Json)) {
    const shared = ((item as Json).parameters ?? []).map(deref);
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const shape = `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
      const found = releases.filter((r) => r.operation(method, path)).map((r) => ({ r, op: r.operation(method, path)! }));
      if (found.length === 0) {
        if (!undescribed[shape]) problems.push({ route, detail: `no release of ${coderSourceVersions.join(', ')} has this route` });
        continue;
      }
      const { r: coder, op: theirs } = found[found.length - 1]!;
      const details: string[] = [];
      const coderQuery = new Set(theirs.parameters.filter((p) => p.in === 'query').map((p) => p.name));
      for (const p of [...shared, ...(op.parameters ?? []).map(deref)]) {
        if (p.in === 'query' && !coderQuery.has(p.name)) details.push(`query parameter ${p.name} is not one Coder reads`);
      }
      const body = op.requestBody ? deref(op.requestBody).content?.['application/json']?.schema : undefined;
      if (body) compareFields(body, theirs.body, coder, 'request', { checkRequired: true }, details);
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        if (!/^2\d\d$/.test(status)) continue;
        const schema = deref(response as Json).content?.['application/json']?.schema;
        const coderSchema = theirs.responses[status] ?? theirs.responses['200'] ?? theirs.responses['201'];
        if (schema && coderSchema) compareFields(schema, coderSchema, coder, `response ${status}`, { checkRequired: false }, details);
      }
      for (const detail of details) {
        if (!Object.keys(swaggerGaps).some((gap) => `${route}: ${detail}`.startsWith(gap)))
          problems.push({ route, detail: `${detail} (Coder ${coder.release})` });
      }
    }
  }
  return problems;
}

describe("the Coder API document against Coder's own swagger.json", () => {
  it('has only routes, parameters and fields that a supported Coder release has, and requires what Coder requires', () => {
    const releases = coderSourceVersions.map((v) => CoderSwagger.load(v));
    const problems = problemsOf(releases);
    assert.deepEqual(
      problems.map((p) => `${p.route}: ${p.detail}`),
      [],
    );
  });
});
