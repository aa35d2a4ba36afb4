import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../src/coder/api-types.ts';
import { desiredMCPServer } from '../../../../src/controllers/codermcpserver/desired.ts';
import { updateRequest } from '../../../../src/controllers/codermcpserver/update-request.ts';
import { anMcpServer } from '../../../fixtures/codermcpserver.ts';

const existing = (over: Partial<Schemas['MCPServerConfig']> = {}): Schemas['MCPServerConfig'] => ({
  id: 'c1',
  display_name: 'GitHub',
  slug: 'github',
  url: 'https://api.githubcopilot.com/mcp/',
  transport: 'streamable_http',
  auth_type: 'api_key',
  api_key_header: 'Authorization',
  availability: 'default_off',
  enabled: true,
  model_intent: false,
  forward_coder_headers: false,
  has_api_key: true,
  tool_allow_list: null,
  tool_deny_list: [],
  ...over,
});
const withKey = anMcpServer()
  .withSpec({ auth: { type: 'apiKey', apiKey: { valueSecretRef: { name: 's' } } } })
  .build();
const values = new Map([['apiKey.value', 'Bearer k1']]);
const hashes = new Map([['apiKey.value', 'h1']]);
const v236 = 'v2.36.0';

describe('MCP server requests', () => {
  it('sends nothing when Coder holds the spec and the secret hash is unchanged (empty and absent lists are equal)', () => {
    const desired = desiredMCPServer(withKey, values, v236);
    assert.equal(updateRequest(existing(), desired, hashes, { 'apiKey.value': 'h1' }), undefined);
  });

  it('sends a changed field alone, and a rotated secret alone', () => {
    const desired = desiredMCPServer(
      anMcpServer()
        .withSpec({ ...withKey.spec, description: 'd' })
        .build(),
      values,
      v236,
    );
    assert.deepEqual(updateRequest(existing(), desired, hashes, { 'apiKey.value': 'h1' }), { description: 'd' });
    const same = desiredMCPServer(withKey, values, v236);
    assert.deepEqual(updateRequest(existing(), same, hashes, { 'apiKey.value': 'h0' }), { api_key_value: 'Bearer k1' });
  });

  it('resends a secret Coder no longer holds, and every secret of an adopted config', () => {
    const desired = desiredMCPServer(withKey, values, v236);
    assert.deepEqual(updateRequest(existing({ has_api_key: false }), desired, hashes, { 'apiKey.value': 'h1' }), {
      api_key_value: 'Bearer k1',
    });
    assert.deepEqual(updateRequest(existing(), desired, hashes, undefined), { api_key_value: 'Bearer k1' });
  });

  it('sends the whole auth block with a new auth type, custom headers as one map', () => {
    const s = anMcpServer()
      .withSpec({
        auth: {
          type: 'customHeaders',
          customHeaders: {
            headers: [
              { name: 'X-Tenant', value: 'acme' },
              { name: 'X-Token', valueFrom: { secretKeyRef: { name: 't' } } },
            ],
          },
        },
      })
      .build();
    const desired = desiredMCPServer(s, new Map([['customHeaders.X-Token', 'tok']]), v236);
    const patch = updateRequest(
      existing(),
      desired,
      new Map([
        ['customHeaders.X-Tenant', 'a'],
        ['customHeaders.X-Token', 'b'],
      ]),
      { 'apiKey.value': 'h1' },
    );
    assert.equal(patch?.auth_type, 'custom_headers');
    assert.deepEqual(patch?.custom_headers, { 'X-Tenant': 'acme', 'X-Token': 'tok' });
    assert.equal(patch?.api_key_value, undefined);
  });

  for (const version of ['v2.36.0', 'v0.0.0-devel+abc123']) {
    it(`sends Coder ${version} only the fields of v2.36.0 codersdk/mcp.go, and names the spec fields no release has`, () => {
      const s = anMcpServer()
        .withSpec({
          allowInPlanMode: true,
          auth: {
            type: 'customHeaders',
            customHeaders: { headers: [{ name: 'X-Tenant', value: 'acme' }], userSuppliedKeys: [{ name: 'X-User', description: 'yours' }] },
          },
          tools: { allow: ['read'], default: 'disabled', rules: [{ tool: 't', action: 'escalate' }] },
        })
        .build();
      const desired = desiredMCPServer(s, new Map(), version);
      assert.deepEqual(Object.keys(desired.fields).sort(), [
        'allow_in_plan_mode',
        'auth_type',
        'availability',
        'description',
        'display_name',
        'enabled',
        'forward_coder_headers',
        'model_intent',
        'slug',
        'tool_allow_list',
        'tool_deny_list',
        'transport',
        'url',
      ]);
      assert.equal(desired.fields.allow_in_plan_mode, true, 'v2.36.0 takes allow_in_plan_mode');
      assert.deepEqual(desired.unsupported, [
        `spec.auth.customHeaders.userSuppliedKeys (Coder ${version} has no MCP custom headers that users supply; no Coder release up to v2.36.0 has them)`,
        `spec.tools.default (Coder ${version} has no MCP tool rules; no Coder release up to v2.36.0 has them)`,
        `spec.tools.rules (Coder ${version} has no MCP tool rules; no Coder release up to v2.36.0 has them)`,
      ]);
    });
  }

  it('registers an externalAuth server without authentication, which v2.36.0 has no type for, and says so', () => {
    const desired = desiredMCPServer(
      anMcpServer()
        .withSpec({ auth: { type: 'externalAuth', externalAuth: { providerID: 'github' } } })
        .build(),
      new Map(),
      v236,
    );
    assert.equal(desired.fields.auth_type, 'none');
    assert.match(
      desired.unsupported[0]!,
      /^spec\.auth\.type externalAuth \(Coder v2\.36\.0 has no MCP servers with external-auth authentication/,
    );
  });

  it('sends the OAuth revocation URL, which v2.36.0 takes', () => {
    const s = anMcpServer()
      .withSpec({ auth: { type: 'oauth2', oauth2: { revocationURL: 'https://idp.example.com/revoke' } } })
      .build();
    const desired = desiredMCPServer(s, new Map(), v236);
    assert.equal(desired.fields.oauth2_revocation_url, 'https://idp.example.com/revoke');
    assert.deepEqual(desired.unsupported, []);
  });

  it('sends nothing again for tool rules Coder cannot hold: a config without them already matches', () => {
    const desired = desiredMCPServer(
      anMcpServer()
        .withSpec({ ...withKey.spec, tools: { rules: [{ tool: 'delete', action: 'escalate' }] } })
        .build(),
      values,
      v236,
    );
    assert.equal(updateRequest(existing(), desired, hashes, { 'apiKey.value': 'h1' }), undefined);
  });
});
