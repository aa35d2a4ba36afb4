// The Coder client against the Coder API double: typed calls, errors, retries, timeouts and the
// same-origin redirect rule, with the double checking every request against openapi.yaml.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CoderCallRecord } from '../../src/coder/call-outcome.ts';
import { CoderClient, type CoderClientOptions } from '../../src/coder/client.ts';
import { isDuplicateLicense, isCoderNotFound, isUnauthorized } from '../../src/coder/error-predicates.ts';
import {
  CoderApiError,
  CoderNetworkError,
  CoderTimeoutError,
  CrossOriginRedirectError,
  TooManyRedirectsError,
  crossOriginRedirectMessage,
} from '../../src/coder/errors.ts';
import { templateMetaUpdate } from '../../src/aggregated/storage/codertemplate/template-settings.ts';
import { fakeLicenseJwt, startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';
import { seedOrganization, seedTemplateWithVersion } from '../harness/coder-api-double/workspace-world.ts';
import { coderApiDocument } from '../harness/coder-api-double/document.ts';
import { handlers } from '../harness/coder-api-double/handlers.ts';

const token = 'AbCdEfGhIj-0123456789abcdefghijkl';

describe('CoderClient against the Coder API double', () => {
  let double: CoderApiDouble;
  let warnings: Array<{ obj: object; msg: string }>;

  before(async () => {
    double = await startCoderApiDouble({ tokens: [token] });
  });
  afterEach(() => double.reset());
  after(async () => double.stop());

  function client(overrides: Partial<CoderClientOptions> = {}): CoderClient {
    warnings = [];
    return new CoderClient({
      baseURL: double.url,
      token,
      backoff: { baseDelayMs: 20, maxDelayMs: 2000 },
      logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
      ...overrides,
    });
  }

  /** The error a call fails with, so a test can look at it closely. */
  async function failure(call: Promise<unknown>): Promise<Error> {
    try {
      await call;
    } catch (err) {
      assert.ok(err instanceof Error, `threw a non-Error: ${String(err)}`);
      assert.ok(!err.message.includes(token), `the error message carries the token: ${err.message}`);
      return err;
    }
    assert.fail('the call succeeded, but it should have failed');
  }

  it('uploads a license, lists it, and sends the token, JSON and Accept on each call', async () => {
    const coder = client();
    const jwt = fakeLicenseJwt({ trial: true, features: { user_limit: 50 } });
    const uploaded = await coder.uploadLicense(jwt);
    assert.equal(uploaded.id, 1);
    assert.equal(uploaded.claims.trial, true);

    const listed = await coder.listLicenses();
    assert.deepEqual(
      listed.map((l) => l.uuid),
      [uploaded.uuid],
    );
    const entitlements = await coder.getEntitlements();
    assert.equal(entitlements.has_license, true);
    assert.equal(entitlements.trial, true);

    const [upload, list] = double.requests;
    assert.equal(upload?.method, 'POST');
    assert.equal(upload?.path, '/api/v2/licenses');
    assert.deepEqual(upload?.body, { license: jwt });
    assert.match(upload?.headers['content-type'] ?? '', /^application\/json/);
    for (const request of double.requests) {
      assert.equal(request.token, token);
      assert.equal(request.headers.accept, 'application/json');
    }
    assert.equal(list?.method, 'GET');
  });

  it("answers a second upload of the same license with Coder's duplicate error, without retrying it", async () => {
    const coder = client();
    const jwt = fakeLicenseJwt();
    await coder.uploadLicense(jwt);
    const err = await failure(coder.uploadLicense(jwt));
    assert.ok(err instanceof CoderApiError);
    assert.equal(err.status, 500);
    assert.ok(isDuplicateLicense(err));
    assert.equal(double.requests.length, 2, 'a duplicate is final: one request per upload');
  });

  it('deletes a license by id, and says 404 for one that is gone', async () => {
    const coder = client();
    const { id } = await coder.uploadLicense(fakeLicenseJwt());
    await coder.deleteLicense(id);
    assert.deepEqual(await coder.listLicenses(), []);
    assert.equal((await coder.getEntitlements()).has_license, false);
    assert.ok(isCoderNotFound(await failure(coder.deleteLicense(id))));
  });

  it('reads build info and the user of the token', async () => {
    const coder = client();
    assert.equal((await coder.getBuildInfo()).version, 'v2.30.0');
    const me = await coder.getCurrentUser();
    assert.equal(me.username, 'coder-k8s-operator');
  });

  it('fails with 401 on a wrong token, and on no token at all', async () => {
    const err = await failure(client({ token: 'WrongWrong-0123456789abcdefghijkl' }).listLicenses());
    assert.ok(err instanceof CoderApiError && isUnauthorized(err), err.message);
    assert.equal(double.requests.length, 1, 'a 401 is not retried');

    const response = await fetch(`${double.url}/api/v2/licenses`);
    assert.equal(response.status, 401);
    assert.equal(typeof ((await response.json()) as { message?: unknown }).message, 'string');
  });

  it('retries a 429 after its Retry-After and then succeeds', async () => {
    double.failNext(1, 429, { retryAfterSeconds: 1 });
    const coder = client();
    const started = Date.now();
    const licenses = await coder.listLicenses();
    const elapsed = Date.now() - started;
    assert.deepEqual(licenses, []);
    assert.equal(double.requests.length, 2, 'one refused attempt, one that succeeded');
    assert.ok(elapsed >= 950, `waited ${elapsed} ms, less than Retry-After`);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.msg, 'retrying Coder API call');
  });

  it('answers undefined, not an error, when Coder says 304 Not Modified to a template PATCH that changes nothing', async () => {
    const org = seedOrganization(double.state.world, 'acme');
    const { template } = seedTemplateWithVersion(double.state.world, org, { template: 'starter' });
    const coder = client();
    const body = { ...templateMetaUpdate(template, { display_name: 'Starter', description: '', icon: '' }) };
    const changed = await coder.request('PATCH', '/api/v2/templates/{template}', { params: { template: template.id }, body });
    assert.equal(changed?.display_name, 'Starter');
    const again = await coder.request('PATCH', '/api/v2/templates/{template}', { params: { template: template.id }, body });
    assert.equal(again, undefined);
    assert.equal(double.requests.at(-1)?.method, 'PATCH');
    assert.equal(double.requests.length, 2, 'a 304 is not retried');
  });

  it('gives up after three attempts when the server keeps answering 503', async () => {
    double.failNext(10, 503);
    const err = await failure(client().getEntitlements());
    assert.ok(err instanceof CoderApiError);
    assert.equal(err.status, 503);
    assert.equal(double.requests.length, 3);
  });

  it('does not retry a 400', async () => {
    double.failNext(5, 400);
    await failure(client().listLicenses());
    assert.equal(double.requests.length, 1);
  });

  it('retries a refused connection and then reports it as a network error', async () => {
    const gone = await startCoderApiDouble();
    await gone.stop();
    const err = await failure(client({ baseURL: gone.url }).getBuildInfo());
    assert.ok(err instanceof CoderNetworkError, `${err.name}: ${err.message}`);
    assert.equal(err.message, 'Coder API GET /api/v2/buildinfo failed: ECONNREFUSED');
    assert.equal(warnings.length, 2, 'two retries after the first attempt');
  });

  it('stops a slow answer at the timeout', async () => {
    double.delay(3000);
    const started = Date.now();
    const err = await failure(client({ timeoutMs: 300 }).getBuildInfo());
    const elapsed = Date.now() - started;
    assert.ok(err instanceof CoderTimeoutError, `${err.name}: ${err.message}`);
    assert.equal(err.message, 'Coder API GET /api/v2/buildinfo did not finish within 300 ms');
    assert.ok(elapsed < 1500, `took ${elapsed} ms`);
    assert.equal(double.requests.length, 1, 'a timeout ends the call, it is not retried');
  });

  it('tells onCall of each attempt: its method, route template (never the ids in the path), outcome and duration', async () => {
    const calls: CoderCallRecord[] = [];
    const coder = client({ onCall: (record) => calls.push(record) });
    const plain = () => calls.splice(0).map(({ method, route, outcome }) => `${method} ${route} ${outcome}`);

    double.failNext(1, 503);
    await coder.getEntitlements();
    assert.deepEqual(plain(), ['GET /api/v2/entitlements server_error', 'GET /api/v2/entitlements success']);

    await failure(coder.deleteLicense(4242));
    assert.deepEqual(plain(), ['DELETE /api/v2/licenses/{id} client_error']);

    double.delay(3000);
    await failure(client({ timeoutMs: 300, onCall: (record) => calls.push(record) }).getBuildInfo());
    const [timedOut] = calls;
    assert.deepEqual(plain(), ['GET /api/v2/buildinfo timeout']);
    assert.ok(timedOut!.seconds > 0.1, `the attempt cut by the 300 ms budget is recorded as lasting ${timedOut!.seconds} s`);

    const gone = await startCoderApiDouble();
    await gone.stop();
    await failure(client({ baseURL: gone.url, retries: 0, onCall: (record) => calls.push(record) }).getBuildInfo());
    assert.deepEqual(plain(), ['GET /api/v2/buildinfo network_error']);

    const aborted = new AbortController();
    double.delay(3000);
    const call = client({ onCall: (record) => calls.push(record) }).getBuildInfo({ signal: aborted.signal });
    setTimeout(() => aborted.abort(new Error('shutting down')), 100);
    await assert.rejects(call, /shutting down/);
    assert.deepEqual(plain(), ['GET /api/v2/buildinfo canceled']);
  });

  it('follows a 307 on the same origin, repeating the method, body and token', async () => {
    double.redirect('/api/v2/licenses', { to: '/api/v2/licenses', status: 307, times: 1 });
    const jwt = fakeLicenseJwt();
    const uploaded = await client().uploadLicense(jwt);
    assert.equal(uploaded.id, 1);
    assert.deepEqual(
      double.requests.map((r) => [r.method, r.path, r.token]),
      [
        ['POST', '/api/v2/licenses', token],
        ['POST', '/api/v2/licenses', token],
      ],
    );
    assert.deepEqual(double.requests[1]?.body, { license: jwt });
  });

  it('follows a 308 that moves a path prefix on the same host and port', async () => {
    double.redirect('/old/', { to: '/', status: 308 });
    const licenses = await client({ baseURL: `${double.url}/old` }).listLicenses();
    assert.deepEqual(licenses, []);
    assert.deepEqual(
      double.requests.map((r) => r.path),
      ['/old/api/v2/licenses', '/api/v2/licenses'],
    );
  });

  it('stops after ten redirects', async () => {
    double.redirect('/api/v2/buildinfo', { to: '/api/v2/buildinfo', status: 302 });
    const err = await failure(client().getBuildInfo());
    assert.ok(err instanceof TooManyRedirectsError);
    assert.equal(double.requests.length, 11);
  });

  describe('a redirect to another origin', () => {
    let other: CoderApiDouble;
    before(async () => {
      other = await startCoderApiDouble({ tokens: [token] });
    });
    after(async () => other.stop());

    for (const status of [301, 302, 307, 308] as const) {
      it(`fails the call on ${status} and sends nothing to the other origin`, async () => {
        other.reset();
        double.redirect('/api/v2/licenses', { to: `${other.url}/api/v2/licenses`, status });
        const err = await failure(client().uploadLicense(fakeLicenseJwt()));
        assert.ok(err instanceof CrossOriginRedirectError);
        assert.equal(err.message, 'refusing redirect to a different origin than the coder URL');
        assert.equal(err.from, double.url);
        assert.equal(err.to, other.url);
        assert.deepEqual(other.requests, [], 'the other origin received a request');
        assert.equal(double.requests.length, 1, 'a refused redirect is not retried');
        assert.deepEqual(
          warnings.map((w) => w.msg),
          [crossOriginRedirectMessage],
        );
        assert.deepEqual(warnings[0]?.obj, {
          method: 'POST',
          path: '/api/v2/licenses',
          from: double.url,
          to: other.url,
          status,
        });
      });
    }

    it('refuses another port on the same host, and another scheme', async () => {
      double.redirect('/api/v2/buildinfo', { to: double.url.replace('http://', 'https://') });
      const err = await failure(client().getBuildInfo());
      assert.equal(err.message, crossOriginRedirectMessage);
      double.reset();
      double.redirect('/api/v2/users/me', { to: `${other.url}/api/v2/users/me` });
      assert.equal((await failure(client().getCurrentUser())).message, crossOriginRedirectMessage);
      assert.deepEqual(other.requests, []);
    });
  });
});

describe('the Coder API double keeps to openapi.yaml', () => {
  let double: CoderApiDouble;
  before(async () => {
    double = await startCoderApiDouble({ tokens: [token] });
  });
  afterEach(() => double.reset());
  after(async () => double.stop());

  async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${double.url}${path}`, {
      method,
      headers: { 'Coder-Session-Token': token, 'Content-Type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown> | undefined,
      buildVersion: response.headers.get('x-coder-build-version'),
    };
  }

  it('rejects an upload without license with 400 and a validation for the field', async () => {
    const reply = await call('POST', '/api/v2/licenses', '{}');
    assert.equal(reply.status, 400);
    assert.equal(reply.body?.message, 'Validation failed.');
    assert.deepEqual(reply.body?.validations, [{ field: 'license', detail: 'Validation failed for tag "required" with value: ""' }]);
    assert.deepEqual(double.state.licenses, []);

    const viaClient = new CoderClient({ baseURL: double.url, token });
    const err = await viaClient.request('POST', '/api/v2/licenses', { body: {} as { license: string } }).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof CoderApiError);
    assert.equal(err.status, 400);
    assert.equal(err.validations?.[0]?.field, 'license');
  });

  it('ignores a field Coder does not know as Coder does, and records it so that the test that sent it fails', async () => {
    const unknown = await call('POST', '/api/v2/licenses', JSON.stringify({ license: 'a.b.c', licence: 'x' }));
    // The handler ran on what Coder would decode: the JWT itself is refused, not the extra field.
    assert.equal(unknown.body?.message, 'Invalid license');
    assert.equal(double.violations.length, 1);
    assert.match(double.violations[0]!, /uploadLicense \(POST \/api\/v2\/licenses\) was sent fields Coder does not know: licence/);
    double.violations.length = 0;
  });

  it("refuses a value of the wrong type and a body that is not JSON as Go's decoder does", async () => {
    const wrongType = await call('POST', '/api/v2/licenses', JSON.stringify({ license: 42 }));
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body?.message, 'Request body must be valid JSON.');
    assert.match(String(wrongType.body?.detail), /license/);
    const notJson = await call('POST', '/api/v2/licenses', 'license=x');
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body?.message, 'Request body must be valid JSON.');
  });

  it('refuses parameters out of schema with the answers Coder gives', async () => {
    const reply = await call('DELETE', '/api/v2/licenses/abc');
    assert.deepEqual([reply.status, reply.body?.message], [404, 'License ID must be an integer']);
    const id = await call('GET', '/api/v2/workspaces/not-a-uuid');
    assert.deepEqual([id.status, id.body?.message], [400, 'Invalid UUID "not-a-uuid".']);
    const query = await call('GET', '/api/v2/workspaces?limit=-1');
    assert.equal(query.status, 400);
    assert.equal(query.body?.message, 'Query parameters have invalid values.');
    assert.equal((query.body?.validations as Array<{ field: string }>)[0]?.field, 'limit');
  });

  it("answers 404 in Coder style for a path the document lacks, and 405 as Coder's router does for a method it lacks", async () => {
    const unknown = await call('GET', '/api/v2/workspaceagents/me');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { message: 'Route not found.' });
    assert.equal(unknown.buildVersion, 'v2.30.0');
    const method = await call('PUT', '/api/v2/licenses');
    assert.deepEqual([method.status, method.body, method.buildVersion], [405, undefined, 'v2.30.0']);
  });

  it('checks the token before the body, and needs none for build info', async () => {
    const reply = await call('POST', '/api/v2/licenses', '{}', { 'Coder-Session-Token': 'nope' });
    assert.equal(reply.status, 401);
    const info = await fetch(`${double.url}/api/v2/buildinfo`);
    assert.equal(info.status, 200);
  });

  it('implements every operation of the document (an operation without a handler would answer 501)', () => {
    const ids = Object.values(coderApiDocument().raw.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      ['get', 'put', 'post', 'patch', 'delete'].flatMap((m) => (item[m]?.operationId ? [item[m]!.operationId!] : [])),
    );
    assert.ok(ids.length > 40);
    assert.deepEqual(
      ids.filter((id) => !(id in handlers)),
      [],
    );
  });

  it('accepts tokens added later, for the user they name', async () => {
    double.addToken('LaterLater-0123456789abcdefghijkl');
    const reply = await call('GET', '/api/v2/users/me', undefined, { 'Coder-Session-Token': 'LaterLater-0123456789abcdefghijkl' });
    assert.equal(reply.status, 200);
    assert.equal(reply.body?.username, 'coder-k8s-operator');
  });

  it('answers 404 for the licenses API when seeded as an AGPL build', async () => {
    double.state.enterprise = false;
    const err = await new CoderClient({ baseURL: double.url, token }).listLicenses().catch((e: unknown) => e);
    assert.ok(isCoderNotFound(err));
  });

  it('reports its own answer when it breaks the document', async () => {
    double.state.buildInfo = { telemetry: 'yes' } as never;
    const reply = await call('GET', '/api/v2/buildinfo');
    assert.equal(reply.status, 500);
    assert.equal(double.violations.length, 1);
    assert.match(double.violations[0]!, /getBuildInfo \(GET \/api\/v2\/buildinfo\) answered 200 with a body that does not match/);
  });
});
