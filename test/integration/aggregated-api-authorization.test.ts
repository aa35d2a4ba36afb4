// Authorization through kube-apiserver as a table: every Role template of one list is made
// twice, once for coderworkspaces and once for ConfigMaps, and every request of another list is sent through
// kube-apiserver for both; a request must be denied (403) on coderworkspaces exactly when kube-apiserver denies
// it on ConfigMaps, whose column is measured, never assumed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { seedRunningWorkspaces, seedUser, seedWorkspace } from '../harness/coder-api-double/workspace-world.ts';
import type { components } from '../../generated/coder-api.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { startAggregatedApi } from '../harness/aggregated-api.ts';
import { kubectlOk } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';
import { eventually } from '../harness/wait.ts';

const token = 'aggregated6-operatortokenvalue0000000';
const served = 'coder';
const elsewhere = 'elsewhere';
/** Objects of both kinds: dev and other exist; created, putMissing and applied exist only while a write row runs. */
const dev = 'acme.alice.dev';
const other = 'acme.alice.other';
const created = 'acme.alice.new';
const putMissing = 'acme.alice.putnew';
const applied = 'acme.alice.applied';

interface Kind {
  plural: 'configmaps' | 'coderworkspaces';
  apiGroup: string;
  /** The path of its group version. */
  prefix: string;
  /** A body every write accepts: a ConfigMap's data, a CoderWorkspace's organization and template of the double. */
  manifest(name: string): Record<string, unknown>;
  mergePatch: Record<string, unknown>;
}

const configMaps: Kind = {
  plural: 'configmaps',
  apiGroup: '',
  prefix: '/api/v1',
  manifest: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served }, data: { k: 'v' } }),
  mergePatch: { data: { k: 'patched' } },
};
const workspaces: Kind = {
  plural: 'coderworkspaces',
  apiGroup: 'aggregation.coder.com',
  prefix: '/apis/aggregation.coder.com/v1alpha1',
  manifest: (name) => ({
    apiVersion: 'aggregation.coder.com/v1alpha1',
    kind: 'CoderWorkspace',
    metadata: { name, namespace: served },
    spec: { organization: 'acme', templateName: 'starter', running: true },
  }),
  // Changes nothing on the running workspace: what is compared is decided before.
  mergePatch: { spec: { running: true } },
};
const kinds = [configMaps, workspaces] as const;

/** A rule of a Role template: `@` is the resource (configmaps or coderworkspaces), `@/log` its subresource. */
interface RuleTemplate {
  verbs: string[];
  resources: string[];
  resourceNames?: string[];
}

interface RoleTemplate {
  label: string;
  rules: RuleTemplate[];
  /** A Role and RoleBinding in `namespace` (served by default); a ClusterRole bound there, or cluster-wide without a namespace. */
  scope: { kind: 'Role'; namespace: string } | { kind: 'ClusterRole'; namespace?: string };
}

const role = (label: string, rules: RuleTemplate[], scope: RoleTemplate['scope'] = { kind: 'Role', namespace: served }): RoleTemplate => ({
  label,
  rules,
  scope,
});
const on = (verbs: string[], resourceNames?: string[]): RuleTemplate[] => [
  { verbs, resources: ['@'], ...(resourceNames ? { resourceNames } : {}) },
];

const roles: RoleTemplate[] = [
  role('no rules', []),
  role('get', on(['get'])),
  role('list', on(['list'])),
  role('watch', on(['watch'])),
  role('get,list,watch', on(['get', 'list', 'watch'])),
  role('get [dev]', on(['get'], [dev])),
  role('list,watch [dev]', on(['list', 'watch'], [dev])),
  role('create', on(['create'])),
  role('update', on(['update'])),
  role('patch', on(['patch'])),
  role('update,create', on(['update', 'create'])),
  role('patch,create', on(['patch', 'create'])),
  role('patch,create [applied]', on(['patch', 'create'], [applied])),
  role('update,patch,delete [dev]', on(['update', 'patch', 'delete'], [dev])),
  role('delete', on(['delete'])),
  role('deletecollection', on(['deletecollection'])),
  role('* on <res>', on(['*'])),
  role('* on * of the group', [{ verbs: ['*'], resources: ['*'] }]),
  role('get <res>/log', [{ verbs: ['get'], resources: ['@/log'] }]),
  role('create <res>/start,<res>/stop', [{ verbs: ['create'], resources: ['@/start', '@/stop'] }]),
  role('get <res>/log [dev], create <res>/start [dev]', [
    { verbs: ['get'], resources: ['@/log'], resourceNames: [dev] },
    { verbs: ['create'], resources: ['@/start'], resourceNames: [dev] },
  ]),
  role('get,list,watch ClusterRole+ClusterRoleBinding', on(['get', 'list', 'watch']), { kind: 'ClusterRole' }),
  role('get,list ClusterRole+RoleBinding in coder', on(['get', 'list']), { kind: 'ClusterRole', namespace: served }),
  role('* Role in elsewhere', on(['*']), { kind: 'Role', namespace: elsewhere }),
];

interface HttpRequest {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
}

interface RequestTemplate {
  label: string;
  /** May change objects: sent one row at a time after the reads, the objects put back after it unless both were denied. */
  writes?: boolean;
  build(kind: Kind): HttpRequest | Promise<HttpRequest>;
}

const collection = (k: Kind, namespace = served) => `${k.prefix}/namespaces/${namespace}/${k.plural}`;
const item = (k: Kind, name: string, namespace = served) => `${collection(k, namespace)}/${name}`;
const query = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
const get = (path: string): HttpRequest => ({ method: 'GET', path });
const watchQuery = (params: Record<string, string> = {}) => query({ watch: 'true', ...params, timeoutSeconds: '1' });
const apply = (k: Kind, name: string): HttpRequest => ({
  method: 'PATCH',
  path: `${item(k, name)}?fieldManager=t`,
  body: k.manifest(name),
  contentType: 'application/apply-patch+yaml',
});
const mergePatch = (k: Kind, name: string): HttpRequest => ({
  method: 'PATCH',
  path: item(k, name),
  body: k.mergePatch,
  contentType: 'application/merge-patch+json',
});

const requests: RequestTemplate[] = [
  { label: 'get dev', build: (k) => get(item(k, dev)) },
  { label: 'get other', build: (k) => get(item(k, other)) },
  { label: 'HEAD dev', build: (k) => ({ method: 'HEAD', path: item(k, dev) }) },
  // An item GET is verb get whatever ?watch says (requestinfo.go): list and watch only apply to collections.
  { label: 'get dev ?watch=true', build: (k) => get(item(k, dev) + watchQuery()) },
  { label: 'list', build: (k) => get(collection(k)) },
  // A field selector requiring metadata.name=x makes the list (or watch) one of x (requestinfo.go).
  { label: 'list fieldSelector=metadata.name=dev', build: (k) => get(collection(k) + query({ fieldSelector: `metadata.name=${dev}` })) },
  { label: 'list fieldSelector=metadata.name==dev', build: (k) => get(collection(k) + query({ fieldSelector: `metadata.name==${dev}` })) },
  {
    label: 'list fieldSelector=metadata.name=other',
    build: (k) => get(collection(k) + query({ fieldSelector: `metadata.name=${other}` })),
  },
  { label: 'watch ?watch=true', build: (k) => get(collection(k) + watchQuery()) },
  { label: 'watch ?watch=1', build: (k) => get(collection(k) + watchQuery({ watch: '1' })) },
  // Only 0 and false are not a watch (runtime.Convert_Slice_string_To_bool).
  { label: 'watch ?watch=yes', build: (k) => get(collection(k) + watchQuery({ watch: 'yes' })) },
  {
    label: 'watch fieldSelector=metadata.name=dev',
    build: (k) => get(collection(k) + watchQuery({ fieldSelector: `metadata.name=${dev}` })),
  },
  {
    label: 'watch /watch/.../dev (legacy path)',
    build: (k) => get(`${k.prefix}/watch/namespaces/${served}/${k.plural}/${dev}?timeoutSeconds=1`),
  },
  {
    label: 'watch /watch/... collection (legacy path)',
    build: (k) => get(`${k.prefix}/watch/namespaces/${served}/${k.plural}?timeoutSeconds=1`),
  },
  { label: 'list across namespaces', build: (k) => get(`${k.prefix}/${k.plural}`) },
  { label: 'watch across namespaces', build: (k) => get(`${k.prefix}/${k.plural}${watchQuery()}`) },
  { label: 'get dev in elsewhere', build: (k) => get(item(k, dev, elsewhere)) },
  { label: 'list in elsewhere', build: (k) => get(collection(k, elsewhere)) },
  { label: 'get dev/log', build: (k) => get(`${item(k, dev)}/log`) },
  { label: 'create new (POST)', writes: true, build: (k) => ({ method: 'POST', path: collection(k), body: k.manifest(created) }) },
  {
    label: 'update dev (PUT of the live object)',
    writes: true,
    build: async (k) => ({ method: 'PUT', path: item(k, dev), body: await live(k, dev) }),
  },
  // An update or apply that would create checks create too (handlers/update.go, patch.go withAuthorization).
  // ConfigMaps never create on update (404), so the PUT row compares the update check only, the apply row both.
  {
    label: 'update putnew, missing (PUT)',
    writes: true,
    build: (k) => ({ method: 'PUT', path: item(k, putMissing), body: k.manifest(putMissing) }),
  },
  { label: 'apply applied, missing', writes: true, build: (k) => apply(k, applied) },
  { label: 'apply dev', writes: true, build: (k) => apply(k, dev) },
  { label: 'merge patch dev', writes: true, build: (k) => mergePatch(k, dev) },
  { label: 'merge patch other', writes: true, build: (k) => mergePatch(k, other) },
  { label: 'delete dev', writes: true, build: (k) => ({ method: 'DELETE', path: item(k, dev) }) },
  { label: 'deletecollection', writes: true, build: (k) => ({ method: 'DELETE', path: collection(k) }) },
  { label: 'create dev/start (POST)', writes: true, build: (k) => ({ method: 'POST', path: `${item(k, dev)}/start`, body: {} }) },
  { label: 'create dev/stop (POST)', writes: true, build: (k) => ({ method: 'POST', path: `${item(k, dev)}/stop`, body: {} }) },
];

interface Identity {
  cert: string;
  key: string;
}

interface Answer {
  status: number;
  body: string;
}

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let admin: Identity;
let starter: components['schemas']['Template'];

/**
 * One request to kube-apiserver as `who`, on a fresh connection. A watch answers its status at once and then
 * streams: the status is what is compared, so it is cut off half a second after the headers.
 */
function send(who: Identity, req: HttpRequest): Promise<Answer> {
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const streams = /[?&]watch=|\/watch\//.test(req.path);
  return new Promise((resolve) => {
    const outgoing = httpsRequest(
      {
        host: '127.0.0.1',
        port: Number(new URL(cp.server).port),
        path: req.path,
        method: req.method,
        cert: who.cert,
        key: who.key,
        rejectUnauthorized: false,
        agent: false,
        headers: {
          Accept: 'application/json',
          ...(body === undefined
            ? {}
            : { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = '';
        const done = () => {
          clearTimeout(cut);
          resolve({ status: res.statusCode ?? 0, body: text });
          outgoing.destroy();
        };
        const cut = streams ? setTimeout(done, 500) : undefined;
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', done);
        res.on('error', done);
      },
    );
    outgoing.setTimeout(20_000, () => outgoing.destroy(new Error('no answer within 20 s')));
    outgoing.on('error', (err) => resolve({ status: 0, body: err.message }));
    outgoing.end(body);
  });
}

/** A request as admin that must answer one of `codes`. */
async function sendOk(req: HttpRequest, codes = [200, 201]): Promise<Answer> {
  const answer = await send(admin, req);
  if (!codes.includes(answer.status)) throw new Error(`${req.method} ${req.path} as admin answered ${answer.status}: ${answer.body}`);
  return answer;
}

/** The object as it is now, read as admin: the body of a PUT that changes nothing. */
async function live(k: Kind, name: string): Promise<unknown> {
  return JSON.parse((await sendOk(get(item(k, name)))).body);
}

/** Runs `tasks` with at most `limit` at a time. */
async function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const identity = async (user: string, groups: string[] = []): Promise<Identity> => {
  const files = await cp.pki.clientCert(user, groups);
  return { cert: readFileSync(files.certFile, 'utf8'), key: readFileSync(files.keyFile, 'utf8') };
};

/** The user, Role (or ClusterRole) and binding of one template for one kind. */
function rbacOf(template: RoleTemplate, index: number, k: Kind) {
  const name = `authz-${index}-${k.plural}`;
  const rules = template.rules.map((r) => ({
    apiGroups: [k.apiGroup],
    resources: r.resources.map((res) => res.replace('@', k.plural)),
    verbs: r.verbs,
    ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
  }));
  const { scope } = template;
  const namespaced = scope.namespace ? { namespace: scope.namespace } : {};
  const objects = [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: scope.kind,
      metadata: { name, ...(scope.kind === 'Role' ? namespaced : {}) },
      rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: scope.namespace ? 'RoleBinding' : 'ClusterRoleBinding',
      metadata: { name, ...namespaced },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: scope.kind, name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
    },
  ];
  // What the first rule allows, asked until RBAC's caches have the binding.
  const first = rules[0];
  const [resource, subresource] = (first?.resources[0] === '*' ? k.plural : (first?.resources[0] ?? '')).split('/');
  const probe = first && {
    user: name,
    resourceAttributes: {
      namespace: scope.namespace ?? '',
      verb: first.verbs[0] === '*' ? 'get' : first.verbs[0],
      group: k.apiGroup,
      resource,
      ...(subresource ? { subresource } : {}),
      ...(first.resourceNames ? { name: first.resourceNames[0] } : {}),
    },
  };
  return { user: name, objects, probe };
}

/** Puts every object back as the rows expect it: dev and other as seeded, the others absent. */
async function restoreObjects(): Promise<void> {
  const world = coder.state.world;
  const alice = seedUser(coder.state.users, 'alice');
  const stored = (name: string) => world.workspaces.find((w) => !w.deleted && w.workspace.name === name.split('.')[2]);
  for (const name of [dev, other]) {
    const ws = stored(name);
    if (ws?.builds[0]?.transition === 'start') continue;
    if (ws) ws.deleted = true;
    seedWorkspace(world, { owner: alice, template: starter, name: name.split('.')[2]!, transition: 'start' });
  }
  for (const name of [created, putMissing, applied]) {
    const ws = stored(name);
    if (ws) ws.deleted = true;
  }
  await Promise.all([
    ...[dev, other].map(async (name) => {
      const now = await send(admin, get(item(configMaps, name)));
      if (now.status === 200 && JSON.parse(now.body).data?.k === 'v') return;
      if (now.status === 200) await sendOk({ method: 'DELETE', path: item(configMaps, name) });
      await sendOk({ method: 'POST', path: collection(configMaps), body: configMaps.manifest(name) });
    }),
    ...[created, putMissing, applied].map((name) => sendOk({ method: 'DELETE', path: item(configMaps, name) }, [200, 404])),
  ]);
}

interface Row {
  role: string;
  request: string;
  configmaps: Answer;
  coderworkspaces: Answer;
}

const denied = (a: Answer) => a.status === 403;
const same = (row: Row) => denied(row.configmaps) === denied(row.coderworkspaces);
/** The status, and what the answer said unless it was a success. */
const said = (a: Answer) => {
  if (a.status < 300 || !a.body) return String(a.status);
  try {
    return `${a.status}: ${(JSON.parse(a.body) as { message?: string }).message ?? a.body.slice(0, 160)}`;
  } catch {
    return `${a.status}: ${a.body.slice(0, 160)}`;
  }
};
const describeRow = (r: Row) => `${r.role} | ${r.request} | configmaps ${said(r.configmaps)} | coderworkspaces ${said(r.coderworkspaces)}`;

function printTable(rows: Row[]): void {
  const header = ['role', 'request', 'configmaps', 'coderworkspaces', 'same/DIFFERS'];
  const cells = rows.map((r) => [
    r.role,
    r.request,
    String(r.configmaps.status),
    String(r.coderworkspaces.status),
    same(r) ? 'same' : 'DIFFERS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => (i < c.length - 1 ? cell.padEnd(widths[i]!) : cell)).join(' | ');
  console.log(
    [
      'dev, other, new, putnew, applied: acme.alice.<name> in namespace coder; <res>: configmaps or coderworkspaces; DIFFERS: 403 on one only',
      line(header),
      ...cells.map(line),
      `${rows.length} rows, ${rows.filter((r) => !same(r)).length} differ`,
    ].join('\n'),
  );
}

describe('aggregated API authorization compared with kube-apiserver on ConfigMaps', { timeout: 600_000 }, () => {
  const identities = new Map<string, Identity>();
  const templates = roles.map((template, index) => ({ template, rbac: kinds.map((k) => rbacOf(template, index, k)) }));

  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane(), startCoderApiDouble({ tokens: [token] })]);
    for (const ns of [served, elsewhere]) await kubectlOk(cp.adminKubeconfigPath, ['create', 'namespace', ns]);
    ({ template: starter } = seedRunningWorkspaces(coder.state.world, coder.state.users, {
      organization: 'acme',
      template: 'starter',
      owner: 'alice',
      workspaces: ['dev', 'other'],
    }));
    admin = await identity('admin', ['system:masters']);
    const bindings = templates.flatMap((t) => t.rbac);
    await kubectlOk(
      cp.adminKubeconfigPath,
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: bindings.flatMap((b) => b.objects) }),
    );
    // One at a time: the PKI's serial file takes no concurrent signing.
    for (const b of bindings) identities.set(b.user, await identity(b.user));
    await Promise.all([
      restoreObjects(),
      sendOk({ method: 'POST', path: collection(configMaps, elsewhere), body: { ...configMaps.manifest(dev), metadata: { name: dev } } }),
    ]);
    ({ operator } = await startAggregatedApi(cp, coder, token, served));
    await eventually('every binding to be in effect', async () => {
      const reviews = await Promise.all(
        bindings
          .filter((b) => b.probe)
          .map((b) =>
            sendOk({
              method: 'POST',
              path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
              body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: b.probe },
            }),
          ),
      );
      return reviews.every((r) => JSON.parse(r.body).status?.allowed === true);
    });
  });

  after(async () => {
    await operator?.process.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('denies exactly the requests on coderworkspaces that kube-apiserver denies on ConfigMaps, for every Role and request', async () => {
    const row = async (t: (typeof templates)[number], r: RequestTemplate): Promise<Row> => {
      const [configmaps, coderworkspaces] = await Promise.all(
        kinds.map(async (k, i) => send(identities.get(t.rbac[i]!.user)!, await r.build(k))),
      );
      return { role: t.template.label, request: r.label, configmaps: configmaps!, coderworkspaces: coderworkspaces! };
    };
    const reads = templates.flatMap((t) => requests.filter((r) => !r.writes).map((r) => () => row(t, r)));
    const rows = await pooled(reads, 6);
    for (const t of templates) {
      for (const r of requests.filter((w) => w.writes)) {
        const written = await row(t, r);
        rows.push(written);
        if (!denied(written.configmaps) || !denied(written.coderworkspaces)) await restoreObjects();
      }
    }
    const order = (x: Row) =>
      roles.findIndex((t) => t.label === x.role) * requests.length + requests.findIndex((q) => q.label === x.request);
    rows.sort((a, b) => order(a) - order(b));
    printTable(rows);

    // A row that was not answered, or answered 401 or 5xx, says nothing about authorization.
    const unanswered = rows.filter((r) =>
      [r.configmaps, r.coderworkspaces].some((a) => a.status === 0 || a.status === 401 || a.status >= 500),
    );
    assert.deepEqual(unanswered.map(describeRow), []);
    assert.ok(rows.length >= 60, `${rows.length} rows`);
    assert.deepEqual(rows.filter((r) => !same(r)).map(describeRow), [], 'the same Role denies the same requests on both');
  });
});
