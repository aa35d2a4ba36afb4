// Operator access against the real Coder server: the operator, under its generated role, bootstraps its
// user and token into the database Coder migrated itself, and Coder accepts that token for the calls the
// operator then makes. The model for the other real-Coder suites: one server per file, started in before().
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoderClient } from '../../../src/coder/client.ts';
import { controlPlaneWithOperatorAccess } from '../../harness/control-plane-with-access.ts';
import { kubectlOk } from '../../harness/kubectl.ts';
import { realCoderEnvironment, type RealCoderEnvironment } from '../../harness/operator-environment.ts';

describe('operator access on the real Coder server', () => {
  let env: RealCoderEnvironment;

  before(async () => {
    env = await realCoderEnvironment();
  });
  after(async () => {
    await env?.stop();
  });

  it("mints a token in Coder's own schema that the server accepts as the operator's owner user", async () => {
    await kubectlOk(env.admin, ['create', 'namespace', 'access']);
    const { token } = await controlPlaneWithOperatorAccess(env, 'access');
    const coder = new CoderClient({ baseURL: env.coder.url, token });
    const me = await coder.getCurrentUser();
    assert.equal(me.username, 'coder-k8s-operator');
    assert.deepEqual(
      (me.roles ?? []).map((r) => r.name),
      ['owner'],
    );
    assert.ok(typeof (await coder.getEntitlements()).features === 'object');
    assert.ok(Array.isArray(await coder.request('GET', '/api/v2/templates')));
    const workspaces = await coder.request('GET', '/api/v2/workspaces');
    assert.equal(typeof workspaces.count, 'number');
  });
});
