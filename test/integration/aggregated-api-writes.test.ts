// Writes through the real aggregator that must not reach Coder, or not all of them: server-side dry-run
// (refused with 400, nothing changed), delete preconditions and stale resourceVersions (409), unknown
// fields under kubectl's --validate=strict (400 naming the field) or warn (a warning), and the in-flight
// limits: requests beyond --max-requests-inflight / --max-mutating-requests-inflight answer 429 with
// Retry-After (except to system:masters, as in kube-apiserver), and a Coder that does not answer within
// --coder-request-timeout is a 504.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedRunningWorkspaces } from '../harness/coder-api-double/workspace-world.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { startControlPlane, type ControlPlane } from '../harness/control-plane.ts';
import { openApiV3Listed, startAggregatedApi } from '../harness/aggregated-api.ts';
import { directRequest, type DirectAnswer } from '../harness/direct-request.ts';
import { kubectl, kubectlOk } from '../harness/kubectl.ts';
import type { RunningOperator } from '../harness/operator.ts';
import type { ClientCert } from '../harness/pki.ts';
import { eventually } from '../harness/wait.ts';

const token = 'aggregated2-operatortokenvalue0000000';
const served = 'coder';
const coderTimeoutSeconds = 3;
const items = `/apis/aggregation.coder.com/v1alpha1/namespaces/${served}/coderworkspaces`;

let cp: ControlPlane;
let coder: CoderApiDouble;
let operator: RunningOperator;
let admin: string;
let adminCert: ClientCert;
/** A user outside system:masters who may read and patch workspaces in the served namespace. */
let editorCert: ClientCert;

/** A request to kube-apiserver, as admin unless told, without kubectl's retries (it retries 429 on its own). */
const viaAggregator = (method: string, path: string, body?: unknown, contentType = 'application/json', cert = adminCert) =>
  directRequest(Number(new URL(cp.server).port), path, {
    method,
    cert,
    headers: body === undefined ? {} : { 'Content-Type': contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const status = (answer: DirectAnswer) => JSON.parse(answer.body) as { reason: string; message: string; code: number };
/** What reached Coder other than reads. */
const coderWrites = () => coder.requests.filter((r) => r.method !== 'GET').length;
const workspace = (name: string) => coder.state.world.workspaces.find((w) => !w.deleted && w.workspace.name === name);
const latestTransition = (name: string) => workspace(name)?.builds[0]?.transition;

describe('aggregated API writes: dry-run, preconditions, field validation, limits', { timeout: 300_000 }, () => {
  before(async () => {
    [cp, coder] = await Promise.all([startControlPlane(), startCoderApiDouble({ tokens: [token] })]);
    admin = cp.adminKubeconfigPath;
    adminCert = await cp.pki.clientCert('admin', ['system:masters']);
    editorCert = await cp.pki.clientCert('erin', []);
    await kubectlOk(admin, ['create', 'namespace', served]);
    // As YAML: `kubectl create role --resource` would look the resource up before the APIService is there.
    await kubectlOk(
      admin,
      ['apply', '-f', '-'],
      `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: workspace-editor, namespace: ${served}}
rules: [{apiGroups: [aggregation.coder.com], resources: [coderworkspaces], verbs: [get, patch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: workspace-editor, namespace: ${served}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: workspace-editor}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: erin}]
`,
    );
    seedRunningWorkspaces(coder.state.world, coder.state.users, {
      organization: 'acme',
      template: 'starter',
      owner: 'alice',
      workspaces: ['dev', 'data', 'spare'],
    });
    ({ operator } = await startAggregatedApi(cp, coder, token, served, {
      args: [`--coder-request-timeout=${coderTimeoutSeconds}s`, '--max-requests-inflight=1', '--max-mutating-requests-inflight=1'],
    }));
  });

  after(async () => {
    await operator?.process.stop();
    await Promise.all([cp?.stop(), coder?.stop()]);
  });

  it('refuses server-side dry-run with 400 on create, patch, apply and delete, and changes nothing in Coder', async () => {
    const writes = coderWrites();
    const manifest = JSON.stringify({
      apiVersion: 'aggregation.coder.com/v1alpha1',
      kind: 'CoderWorkspace',
      metadata: { name: 'acme.alice.dry', namespace: served },
      spec: { organization: 'acme', templateName: 'starter', running: true },
    });
    const attempts = [
      await kubectl(admin, ['create', '--dry-run=server', '-f', '-'], manifest),
      await kubectl(admin, ['apply', '--server-side', '--dry-run=server', '-f', '-'], manifest),
      await kubectl(admin, [
        'patch',
        'coderworkspace',
        'acme.alice.dev',
        '-n',
        served,
        '--dry-run=server',
        '--type=merge',
        '-p',
        '{"spec":{"running":false}}',
      ]),
      await kubectl(admin, ['delete', 'coderworkspace', 'acme.alice.dev', '-n', served, '--dry-run=server']),
    ];
    for (const attempt of attempts) {
      assert.notEqual(attempt.code, 0);
      assert.match(
        attempt.stderr,
        /BadRequest.*server-side dry-run is not supported by coderworkspaces\.aggregation\.coder\.com; nothing was changed/,
      );
    }
    assert.equal(coderWrites(), writes, 'no write reached Coder');
    assert.equal(workspace('dry'), undefined);
    assert.equal(latestTransition('dev'), 'start');
  });

  it('refuses a delete whose uid or resourceVersion precondition does not hold, and an update from a stale read, with 409', async () => {
    const live = JSON.parse(await kubectlOk(admin, ['get', 'coderworkspace', 'acme.alice.data', '-n', served, '-o', 'json']));
    const writes = coderWrites();
    const wrongUid = await viaAggregator('DELETE', `${items}/acme.alice.data`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(wrongUid.status, 409);
    assert.match(
      status(wrongUid).message,
      /^Precondition failed: UID in precondition: 00000000-0000-4000-8000-000000000000, UID in object meta: /,
    );
    const wrongVersion = await viaAggregator('DELETE', `${items}/acme.alice.data`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: live.metadata.uid, resourceVersion: 'stale' },
    });
    assert.equal(wrongVersion.status, 409);
    assert.match(status(wrongVersion).message, /^Precondition failed: ResourceVersion in precondition: stale/);
    const stale = { ...live, metadata: { ...live.metadata, resourceVersion: 'stale' }, spec: { ...live.spec, running: false } };
    const replaced = await kubectl(admin, ['replace', '-f', '-'], JSON.stringify(stale));
    assert.notEqual(replaced.code, 0);
    assert.match(replaced.stderr, /Conflict.*resource version mismatch: got "stale"/);
    assert.equal(coderWrites(), writes, 'no write reached Coder');

    const holding = await viaAggregator('DELETE', `${items}/acme.alice.data`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion },
    });
    assert.equal(holding.status, 200, holding.body);
    assert.ok(
      coder.requests.some(
        (r) => r.path === `/api/v2/workspaces/${live.metadata.uid}/builds` && (r.body as { transition?: string }).transition === 'delete',
      ),
      'with the preconditions holding, the delete build was queued',
    );
  });

  it('refuses unknown fields under kubectl --validate=strict naming them, and warns under --validate=warn', async () => {
    const manifest = (name: string) =>
      JSON.stringify({
        apiVersion: 'aggregation.coder.com/v1alpha1',
        kind: 'CoderWorkspace',
        metadata: { name, namespace: served },
        spec: { organization: 'acme', templateName: 'starter', running: true, colour: 'red' },
      });
    // kubectl asks for server-side field validation only once the group is in the OpenAPI v3 index; before
    // that it validates on the client, with another message.
    const cache = await openApiV3Listed(cp);
    const writes = coderWrites();
    const strict = await kubectl(admin, ['apply', ...cache, '--validate=strict', '-f', '-'], manifest('acme.alice.strict'));
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /BadRequest.*strict decoding error: unknown field "spec\.colour"/);
    const strictSsa = await kubectl(
      admin,
      ['apply', ...cache, '--server-side', '--validate=strict', '-f', '-'],
      manifest('acme.alice.strict'),
    );
    assert.match(strictSsa.stderr, /strict decoding error: unknown field "spec\.colour"/);
    assert.equal(coderWrites(), writes, 'nothing was created');

    const warned = await kubectl(admin, ['apply', ...cache, '--validate=warn', '-f', '-'], manifest('acme.alice.warned'));
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec\.colour"/);
    assert.ok(workspace('warned'), 'created without the unknown field');
  });

  it('answers metav1.Status errors for unknown paths, unservable Accept, mismatched bodies and collection deletes; takes YAML bodies', async () => {
    const root = '/apis/aggregation.coder.com/v1alpha1';
    for (const path of [`${root}/namespaces/${served}/nosuch`, `${root}/coderworkspaces/acme.alice.dev`]) {
      const answer = await viaAggregator('GET', path);
      assert.deepEqual(
        [path, answer.status, status(answer).reason, status(answer).message],
        [path, 404, 'NotFound', 'the server could not find the requested resource'],
      );
    }
    const protobufOnly = await directRequest(Number(new URL(cp.server).port), `${items}/acme.alice.dev`, {
      cert: adminCert,
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
    });
    assert.equal(protobufOnly.status, 406);
    assert.equal(status(protobufOnly).reason, 'NotAcceptable');
    const collectionDelete = await viaAggregator('DELETE', items);
    assert.deepEqual([collectionDelete.status, status(collectionDelete).reason], [405, 'MethodNotAllowed']);

    const yaml = (namespace: string) =>
      `apiVersion: aggregation.coder.com/v1alpha1\nkind: CoderWorkspace\nmetadata:\n  name: acme.alice.yaml\n  namespace: ${namespace}\nspec:\n  organization: acme\n  templateName: starter\n  running: true\n`;
    const yamlCreate = (body: string) =>
      directRequest(Number(new URL(cp.server).port), items, {
        method: 'POST',
        cert: adminCert,
        headers: { 'Content-Type': 'application/yaml', Accept: 'application/json' },
        body,
      });
    const elsewhere = await yamlCreate(yaml('other'));
    assert.equal(elsewhere.status, 400);
    assert.equal(status(elsewhere).message, `metadata.namespace "other" must match request namespace "${served}"`);
    const created = await yamlCreate(yaml(served));
    assert.equal(created.status, 201, created.body);
    assert.equal(JSON.parse(created.body).metadata.name, 'acme.alice.yaml');
    assert.ok(workspace('yaml'));

    const live = JSON.parse((await viaAggregator('GET', `${items}/acme.alice.yaml`)).body);
    const renamed = await viaAggregator('PUT', `${items}/acme.alice.yaml`, {
      ...live,
      metadata: { ...live.metadata, name: 'acme.alice.other' },
    });
    assert.equal(renamed.status, 400);
    assert.equal(status(renamed).message, 'updated object metadata.name "acme.alice.other" must match request name "acme.alice.yaml"');
  });

  it('answers 429 with Retry-After past the in-flight limits but serves system:masters, and 504 when Coder does not answer in time', async () => {
    coder.delay(60_000);
    try {
      const from = coder.requests.length;
      const held = (path: string) => coder.requests.slice(from).some((r) => r.path.endsWith(path));
      const asEditor = (method: string, name: string, body?: unknown) =>
        viaAggregator(method, `${items}/${name}`, body, 'application/merge-patch+json', editorCert);
      const stop = { spec: { running: false } };
      // One write in flight (held by Coder): a second one is turned away at once, not queued.
      const write = asEditor('PATCH', 'acme.alice.dev', stop);
      await eventually('the first write to reach Coder', async () => held('/workspace/dev'));
      const second = await asEditor('PATCH', 'acme.alice.spare', stop);
      assert.equal(second.status, 429, second.body);
      assert.equal(second.headers['retry-after'], '1');
      assert.deepEqual(
        [status(second).reason, status(second).message],
        ['TooManyRequests', 'too many requests in flight; try again later'],
      );
      // A member of system:masters is served all the same, as kube-apiserver serves it: the write reaches Coder.
      const adminWrite = viaAggregator('PATCH', `${items}/acme.alice.yaml`, stop, 'application/merge-patch+json');
      await eventually("the admin's write to reach Coder", async () => held('/workspace/yaml'));
      // Likewise one read.
      const read = asEditor('GET', 'acme.alice.spare');
      await eventually('the read to reach Coder', async () => held('/workspace/spare'));
      const secondRead = await asEditor('GET', 'acme.alice.warned');
      assert.equal(secondRead.status, 429, secondRead.body);
      // The held requests end when --coder-request-timeout runs out.
      for (const answer of await Promise.all([write, adminWrite, read])) {
        assert.equal(answer.status, 504, answer.body);
        assert.deepEqual(status(answer), {
          ...status(answer),
          reason: 'Timeout',
          message: `Coder did not answer within ${coderTimeoutSeconds * 1000} ms`,
        });
      }
    } finally {
      coder.delay(0);
    }
    assert.deepEqual([latestTransition('dev'), latestTransition('yaml')], ['start', 'start'], 'the timed-out writes changed nothing');
    assert.equal((await viaAggregator('GET', `${items}/acme.alice.spare`)).status, 200, 'the slots are free again');
  });
});
