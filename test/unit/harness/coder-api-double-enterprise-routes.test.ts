// The Coder API double's licensed routes (licenses, entitlements, provisioner keys, AI Gateway keys) and the
// deployment config, asked through the document's checks and the handlers as the double's server asks them,
// against the answers of the Coder source each handler cites.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { coderApiDocument } from '../../harness/coder-api-double/document.ts';
import { handlers, type Answer } from '../../harness/coder-api-double/handlers.ts';
import { initialState, type CoderApiDoubleState } from '../../harness/coder-api-double/state.ts';
import { checkResponse, isRejection, validateRequest } from '../../harness/coder-api-double/validation.ts';
import { seedOrganization } from '../../harness/coder-api-double/workspace-world.ts';

const doc = coderApiDocument();
const resourceNotFound = 'Resource not found or you do not have access to this resource';

/**
 * One request as coder-api-double.ts answers it with a valid token: the route's answer before authentication,
 * the document's checks, then the handler.
 */
function ask(state: CoderApiDoubleState, method: string, path: string, body?: unknown): Answer {
  const match = doc.match(method, path);
  assert.ok(match, `${method} ${path} does not route`);
  const early = handlers[match.operation.operationId]!.beforeApiKey?.(state);
  if (early) return early;
  const checked = validateRequest(doc, match.operation, {
    pathParams: match.pathParams,
    query: new URLSearchParams(),
    headers: {},
    contentType: 'application/json',
    rawBody: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
  });
  if (isRejection(checked)) return checked;
  const answer = handlers[match.operation.operationId]!({ state, params: checked.params, body: checked.body, user: state.users[0] });
  assert.equal(checkResponse(doc, match.operation, answer.status, answer.body), undefined);
  return answer;
}

const keys = '/api/v2/organizations/default/provisionerkeys';

describe('the Coder API double on provisioner keys', () => {
  let state: CoderApiDoubleState;
  beforeEach(() => {
    state = initialState([]);
    state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
  });

  const nameRows = [
    { name: 'a missing name', body: {}, text: 'Name is required' },
    { name: 'an empty name', body: { name: '' }, text: 'Name is required' },
    { name: 'a name of 65 bytes', body: { name: 'k'.repeat(65) }, text: 'Name must be at most 64 characters' },
    { name: 'a name of 33 characters in 66 bytes', body: { name: 'é'.repeat(33) }, text: 'Name must be at most 64 characters' },
    { name: 'a reserved name in any case', body: { name: 'User-Auth' }, text: "Name cannot be reserved name 'User-Auth'" },
  ];
  for (const row of nameRows) {
    it(`refuses ${row.name} with postProvisionerKey's message as message and as the name's detail`, () => {
      assert.deepEqual(ask(state, 'POST', keys, row.body), {
        status: 400,
        body: { message: row.text, validations: [{ field: 'name', detail: row.text }] },
      });
    });
  }

  it('takes a name of exactly 64 bytes', () => {
    assert.equal(ask(state, 'POST', keys, { name: 'k'.repeat(64) }).status, 201);
  });

  it("refuses to delete the default organization's reserved keys, in any case, and knows no such key elsewhere", () => {
    for (const name of ['built-in', 'USER-AUTH', 'psk']) {
      assert.deepEqual(ask(state, 'DELETE', `${keys}/${name}`), {
        status: 400,
        body: { message: `Cannot delete reserved '${name.toLowerCase()}' provisioner key` },
      });
    }
    seedOrganization(state.world, 'other');
    assert.deepEqual(ask(state, 'DELETE', '/api/v2/organizations/other/provisionerkeys/psk'), {
      status: 404,
      body: { message: resourceNotFound },
    });
    assert.deepEqual(ask(state, 'GET', keys), { status: 200, body: [] }, 'the reserved keys are not listed');
  });

  it('answers a name longer than any key as a key it does not have', () => {
    assert.deepEqual(ask(state, 'DELETE', `${keys}/${'k'.repeat(65)}`), { status: 404, body: { message: resourceNotFound } });
  });

  it('asks for no X-Coder-Bypass-Ratelimit header, which Coder never reads on /api/v2', () => {
    const op = doc.match('POST', keys)!.operation;
    assert.deepEqual(
      op.parameters.map((p) => p.name),
      ['organization'],
    );
    assert.equal(op.responses['428'], undefined);
  });
});

describe('the Coder API double as an AGPL build', () => {
  let state: CoderApiDoubleState;
  beforeEach(() => {
    state = initialState([]);
    state.enterprise = false;
    state.buildInfo.version = 'v2.36.0';
    state.entitlements.features.external_provisioner_daemons = { entitlement: 'entitled', enabled: true };
    state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
  });

  const routes = [
    ['GET', '/api/v2/entitlements'],
    ['GET', '/api/v2/licenses'],
    ['DELETE', '/api/v2/licenses/1'],
    ['GET', keys],
    ['POST', keys, { name: 'eu' }],
    ['DELETE', `${keys}/eu`],
    ['GET', '/api/v2/ai-gateway/keys'],
    ['POST', '/api/v2/ai-gateway/keys', { name: 'eu' }],
    ['DELETE', '/api/v2/ai-gateway/keys/5e9b1c2a-7d4e-4f6a-8b3c-9a1d2e3f4b5c'],
  ] as const;
  for (const [method, path, body] of routes) {
    it(`answers ${method} ${path} "Route not found."`, () => {
      assert.deepEqual(ask(state, method, path, body), { status: 404, body: { message: 'Route not found.' } });
    });
  }

  it('answers the routes /api/v2 lacks before authentication, and those under /organizations/{organization} after it', () => {
    for (const id of ['getEntitlements', 'listLicenses', 'uploadLicense', 'deleteLicense', 'listAIGatewayKeys', 'createAIGatewayKey']) {
      assert.deepEqual(handlers[id]!.beforeApiKey?.(state), { status: 404, body: { message: 'Route not found.' } }, id);
    }
    for (const id of ['listProvisionerKeys', 'createProvisionerKey', 'deleteProvisionerKey']) {
      assert.equal(handlers[id]!.beforeApiKey, undefined, id);
    }
    assert.deepEqual(ask(state, 'DELETE', '/api/v2/licenses/abc'), { status: 404, body: { message: 'Route not found.' } });
  });

  it('reads the organization of a provisioner-key path first, as its /organizations/{organization} router does', () => {
    assert.deepEqual(ask(state, 'GET', '/api/v2/organizations/nowhere/provisionerkeys'), {
      status: 404,
      body: { message: resourceNotFound },
    });
  });
});

describe('the Coder API double on entitlements', () => {
  it('serves them without a session token, as enterprise/coderd/coderd.go mounts them', () => {
    assert.equal(doc.match('GET', '/api/v2/entitlements')?.operation.secured, false);
    assert.equal(ask(initialState([]), 'GET', '/api/v2/entitlements').status, 200);
  });
});

describe('the Coder API double on licenses', () => {
  it('answers a license id of 0 or below, which strconv.ParseInt takes, as unknown', () => {
    const state = initialState([]);
    for (const id of ['0', '-1', '-2147483648']) {
      assert.deepEqual(ask(state, 'DELETE', `/api/v2/licenses/${id}`), { status: 404, body: { message: 'Unknown license ID' } });
    }
    for (const id of ['abc', '2147483648']) {
      assert.deepEqual(ask(state, 'DELETE', `/api/v2/licenses/${id}`), {
        status: 404,
        body: { message: 'License ID must be an integer' },
      });
    }
  });
});

describe('the Coder API double on AI Gateway keys', () => {
  let state: CoderApiDoubleState;
  const path = '/api/v2/ai-gateway/keys';
  beforeEach(() => {
    state = initialState([]);
    state.buildInfo.version = 'v2.36.0';
    state.entitlements.features.aibridge = { entitlement: 'entitled', enabled: true };
  });

  const invalidName = {
    status: 400,
    body: {
      message: 'Invalid key name.',
      validations: [
        {
          field: 'name',
          detail:
            'Must be 64 characters or fewer, lowercase letters, numbers, and non-consecutive hyphens, cannot start or end with a hyphen.',
        },
      ],
    },
  };
  const rows = [
    { name: 'an upper-case name', body: { name: 'EU' }, answer: invalidName },
    { name: 'a name with a double hyphen', body: { name: 'eu--west' }, answer: invalidName },
    { name: 'a name of 65 characters', body: { name: 'k'.repeat(65) }, answer: invalidName },
    {
      name: 'an empty name',
      body: { name: '' },
      answer: {
        status: 400,
        body: {
          message: 'Validation failed.',
          validations: [{ field: 'name', detail: 'Validation failed for tag "required" with value: ""' }],
        },
      },
    },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} as Coder does`, () => {
      assert.deepEqual(ask(state, 'POST', path, row.body), row.answer);
    });
  }

  it("refuses a name in use with Coder's message and detail", () => {
    assert.equal(ask(state, 'POST', path, { name: 'eu' }).status, 201);
    assert.deepEqual(ask(state, 'POST', path, { name: 'eu' }), {
      status: 400,
      body: { message: 'Key name must be unique.', validations: [{ field: 'name', detail: 'A key with this name already exists.' }] },
    });
  });

  it('deletes by any id form uuid.Parse reads, answers an unknown id with ResourceNotFound and any other id 400', () => {
    const created = ask(state, 'POST', path, { name: 'eu' }).body as { id: string };
    const bare = created.id.replace(/-/g, '').toUpperCase();
    assert.deepEqual(ask(state, 'DELETE', `${path}/${bare}`), { status: 204 });
    assert.deepEqual(ask(state, 'DELETE', `${path}/${created.id}`), { status: 404, body: { message: resourceNotFound } });
    assert.deepEqual(ask(state, 'DELETE', `${path}/not-a-uuid`), {
      status: 400,
      body: { message: 'Invalid key ID.', detail: 'invalid UUID length: 10' },
    });
    assert.deepEqual(ask(state, 'DELETE', `${path}/${'x'.repeat(36)}`), {
      status: 400,
      body: { message: 'Invalid key ID.', detail: 'invalid UUID format' },
    });
  });

  it('answers the premium 403 before it reads the id', () => {
    state.entitlements.features.aibridge = { entitlement: 'not_entitled', enabled: false };
    assert.equal(ask(state, 'DELETE', `${path}/not-a-uuid`).status, 403);
  });
});

describe('the Coder API double on the deployment config', () => {
  it('says whether AI Gateway is on from v2.27.0, whose DeploymentValues first has the field', () => {
    const state = initialState([]);
    state.aiGatewayEnabled = false;
    for (const [version, config] of [
      ['v2.26.1', {}],
      ['v2.27.0', { ai: { bridge: { enabled: false } } }],
      ['v0.0.0-devel', { ai: { bridge: { enabled: false } } }],
    ] as const) {
      state.buildInfo.version = version;
      assert.deepEqual(ask(state, 'GET', '/api/v2/deployment/config'), { status: 200, body: { config, options: [] } }, version);
    }
  });
});
