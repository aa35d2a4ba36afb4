// The workspace-proxy routes of the Coder API double, driven through the operator's Coder client: what
// the proxy controller relies on (tokens issued on create and on regenerate, lookup by id or name, the primary
// region, deletes that only mark a proxy deleted).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CoderClient } from '../../src/coder/client.ts';
import { isCoderNotFound } from '../../src/coder/error-predicates.ts';
import { startCoderApiDouble, type CoderApiDouble } from '../harness/coder-api-double.ts';

describe('workspace proxies in the Coder API double', () => {
  const token = 'proxy-admin-token';
  let coder: CoderApiDouble;
  let client: CoderClient;

  before(async () => {
    coder = await startCoderApiDouble({ tokens: [token] });
    client = new CoderClient({ baseURL: coder.url, token, retries: 0 });
  });
  beforeEach(() => {
    coder.reset();
    coder.state.entitlements.features.workspace_proxy = { entitlement: 'entitled', enabled: true };
  });
  after(() => coder?.stop());

  const get = (idOrName: string) =>
    client.request('GET', '/api/v2/workspaceproxies/{workspaceProxy}', { params: { workspaceProxy: idOrName } });

  it('registers a proxy once, with its token, and finds it by id and by name', async () => {
    const created = await client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'eu-west', display_name: 'Europe West' } });
    assert.match(created.proxy_token ?? '', new RegExp(`^${created.proxy.id}:[0-9a-f]{48}$`));
    assert.equal((await get('eu-west')).id, created.proxy.id);
    assert.equal((await get(created.proxy.id)).display_name, 'Europe West');
    assert.deepEqual([created.proxy.derp_enabled, created.proxy.status?.report], [true, { errors: [], warnings: [] }]);
    // Unique ignoring case (workspace_proxies_lower_name_idx).
    await assert.rejects(client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'EU-West' } }), /409/);
    const list = await client.request('GET', '/api/v2/workspaceproxies');
    assert.deepEqual(
      list.regions.map((r) => r.name),
      ['primary', 'eu-west'],
    );
  });

  it('answers the primary region for "primary" and the deployment id, and refuses to create, rename or delete it', async () => {
    const primary = await get('primary');
    assert.deepEqual([primary.id, primary.display_name, primary.healthy], [coder.state.buildInfo.deployment_id, 'Default', true]);
    assert.equal((await get(primary.id)).name, 'primary');
    await assert.rejects(client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'Primary' } }), (err: Error) =>
      /answered 400 Bad Request: The name "primary" is reserved for the primary region\./.test(err.message),
    );
    await assert.rejects(
      client.request('PATCH', '/api/v2/workspaceproxies/{workspaceProxy}', {
        params: { workspaceProxy: 'primary' },
        body: { id: primary.id, name: 'main', display_name: 'Main', icon: '/emojis/1f3e0.png' },
      }),
      /400/,
    );
    await assert.rejects(
      client.request('DELETE', '/api/v2/workspaceproxies/{workspaceProxy}', { params: { workspaceProxy: 'primary' } }),
      /answered 400 Bad Request: Cannot delete primary proxy/,
    );
    assert.deepEqual(coder.state.workspaceProxies, []);
  });

  it('issues a new token only on regenerate_token, and writes name, display name and icon as sent', async () => {
    const { proxy, proxy_token: first } = await client.request('POST', '/api/v2/workspaceproxies', {
      body: { name: 'eu-west', display_name: 'Europe West', icon: '/emojis/1f1ea-1f1fa.png' },
    });
    const renamed = await client.request('PATCH', '/api/v2/workspaceproxies/{workspaceProxy}', {
      params: { workspaceProxy: proxy.id },
      body: { id: proxy.id, name: 'europe', display_name: 'Europe', icon: '/emojis/1f30d.png' },
    });
    assert.equal(renamed.proxy_token, '');
    assert.deepEqual([renamed.proxy.name, renamed.proxy.display_name, renamed.proxy.icon_url], ['europe', 'Europe', '/emojis/1f30d.png']);
    assert.equal(coder.state.workspaceProxies[0]!.token, first);
    const regenerated = await client.request('PATCH', '/api/v2/workspaceproxies/{workspaceProxy}', {
      params: { workspaceProxy: 'europe' },
      body: { id: proxy.id, name: 'europe', display_name: 'Europe', icon: '/emojis/1f30d.png', regenerate_token: true },
    });
    assert.ok(regenerated.proxy_token && regenerated.proxy_token !== first);
    assert.equal(coder.state.workspaceProxies[0]!.token, regenerated.proxy_token);
  });

  it('refuses a change with an empty or missing display name or icon, as validate "required" does', async () => {
    const { proxy } = await client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'eu-west' } });
    assert.deepEqual([proxy.display_name, proxy.icon_url], ['', ''], 'the create stores what was sent');
    const patch = (body: Record<string, unknown>) =>
      fetch(`${coder.url}/api/v2/workspaceproxies/${proxy.id}`, {
        method: 'PATCH',
        headers: { 'Coder-Session-Token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const empty = await patch({ id: proxy.id, name: 'eu-west', display_name: '', icon: '', regenerate_token: true });
    assert.equal(empty.status, 400);
    assert.deepEqual(await empty.json(), {
      message: 'Validation failed.',
      validations: [
        { field: 'display_name', detail: 'Validation failed for tag "required" with value: ""' },
        { field: 'icon', detail: 'Validation failed for tag "required" with value: ""' },
      ],
    });
    const missing = await patch({ id: proxy.id, name: 'eu-west', regenerate_token: true });
    assert.equal(missing.status, 400);
    assert.deepEqual(((await missing.json()) as { validations: { field: string }[] }).validations.map((v) => v.field).sort(), [
      'display_name',
      'icon',
    ]);
    assert.equal(coder.state.workspaceProxies[0]!.proxy.display_name, '', 'nothing was changed');
  });

  it('answers every route 403 "Workspace Proxy is a Premium feature" while the feature is not enabled, before the API key and the body', async () => {
    coder.state.entitlements.features.workspace_proxy = { entitlement: 'not_entitled', enabled: false };
    await assert.rejects(client.request('GET', '/api/v2/workspaceproxies'), (err: Error) =>
      /answered 403 Forbidden: Workspace Proxy is a Premium feature\. Contact sales!$/.test(err.message),
    );
    await assert.rejects(client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'eu-west' } }), /403/);
    // RequireFeatureMW is mounted outside the API key middleware (enterprise/coderd/coderd.go).
    const signedOut = await fetch(`${coder.url}/api/v2/workspaceproxies`, { method: 'POST', body: '{not json' });
    assert.equal(signedOut.status, 403);
    assert.deepEqual(await signedOut.json(), { message: 'Workspace Proxy is a Premium feature. Contact sales!' });
    assert.deepEqual(coder.state.workspaceProxies, []);
  });

  it('has no proxy routes as an AGPL build: 404 "Route not found." before the API key', async () => {
    coder.state.enterprise = false;
    const answer = await fetch(`${coder.url}/api/v2/workspaceproxies/eu-west`);
    assert.equal(answer.status, 404);
    assert.deepEqual(await answer.json(), { message: 'Route not found.' });
  });

  it('deregisters a proxy by marking it deleted: found by id with deleted set, not by name, and its name free again', async () => {
    const { proxy } = await client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'eu-west' } });
    const del = () => client.request('DELETE', '/api/v2/workspaceproxies/{workspaceProxy}', { params: { workspaceProxy: proxy.id } });
    await del();
    await assert.rejects(get('eu-west'), (err) => isCoderNotFound(err));
    assert.equal((await get(proxy.id)).deleted, true);
    await del();
    const list = await client.request('GET', '/api/v2/workspaceproxies');
    assert.deepEqual(
      list.regions.map((r) => r.name),
      ['primary'],
    );
    const again = await client.request('POST', '/api/v2/workspaceproxies', { body: { name: 'eu-west' } });
    assert.notEqual(again.proxy.id, proxy.id);
    assert.equal((await get('eu-west')).id, again.proxy.id);
    assert.deepEqual(coder.violations, []);
  });
});
