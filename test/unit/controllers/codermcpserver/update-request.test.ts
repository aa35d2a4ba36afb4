import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../../../src/coder/api-types.ts';
import { desiredMCPServer, experimentalMCPServersPath, mcpServersPath } from '../../../../src/controllers/codermcpserver/desired.ts';
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

describe('MCP server requests', () => {
  it('sends nothing when Coder holds the spec and the secret hash is unchanged (empty and absent lists are equal)', () => {
    const desired = desiredMCPServer(withKey, values, mcpServersPath);
    assert.equal(updateRequest(existing(), desired, hashes, { 'apiKey.value': 'h1' }), undefined);
  });

  it('sends a changed field alone, and a rotated secret alone', () => {
    const desired = desiredMCPServer(
      anMcpServer()
        .withSpec({ ...withKey.spec, description: 'd' })
        .build(),
      values,
      mcpServersPath,
    );
    assert.deepEqual(updateRequest(existing(), desired, hashes, { 'apiKey.value': 'h1' }), { description: 'd' });
    const same = desiredMCPServer(withKey, values, mcpServersPath);
    assert.deepEqual(updateRequest(existing(), same, hashes, { 'apiKey.value': 'h0' }), { api_key_value: 'Bearer k1' });
  });

  it('resends a secret Coder no longer holds, and every secret of an adopted config', () => {
    const desired = desiredMCPServer(withKey, values, mcpServersPath);
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
    const desired = desiredMCPServer(s, new Map([['customHeaders.X-Token', 'tok']]), mcpServersPath);
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

  it('sends on the experimental path exactly the fields of v2.36.0 codersdk/mcp.go, and names the others', () => {
    const s = anMcpServer()
      .withSpec({
        allowInPlanMode: true,
        auth: {
          type: 'customHeaders',
          customHeaders: { headers: [{ name: 'X-Tenant', value: 'acme' }], userSuppliedKeys: [{ name: 'X-User', description: 'yours' }] },
        },
        tools: { default: 'disabled', rules: [{ tool: 't', action: 'escalate' }] },
      })
      .build();
    const older = desiredMCPServer(s, new Map(), experimentalMCPServersPath);
    assert.equal(older.fields.tool_rules, undefined);
    assert.equal(older.fields.tool_default, undefined);
    assert.equal(older.fields.custom_headers_user_keys, undefined);
    assert.equal(older.fields.custom_headers_user_key_descriptions, undefined);
    assert.equal(older.fields.allow_in_plan_mode, true, 'v2.36.0 takes allow_in_plan_mode');
    assert.deepEqual(
      older.unsupported.map((u) => u.split(' (')[0]),
      ['spec.auth.customHeaders.userSuppliedKeys', 'spec.tools.default', 'spec.tools.rules'],
    );
    const newer = desiredMCPServer(s, new Map(), mcpServersPath);
    assert.deepEqual(newer.unsupported, []);
    assert.deepEqual(newer.fields.custom_headers_user_keys, ['X-User']);
  });

  it('sends the OAuth revocation URL on the experimental path, which v2.36.0 takes', () => {
    const s = anMcpServer()
      .withSpec({ auth: { type: 'oauth2', oauth2: { revocationURL: 'https://idp.example.com/revoke' } } })
      .build();
    const older = desiredMCPServer(s, new Map(), experimentalMCPServersPath);
    assert.equal(older.fields.oauth2_revocation_url, 'https://idp.example.com/revoke');
    assert.deepEqual(older.unsupported, []);
  });

  it('sends each tool rule as {tool, action, enabled}, enabled true only for enabled', () => {
    const s = anMcpServer()
      .withSpec({
        tools: {
          rules: [
            { tool: 'read', action: 'enabled' },
            { tool: 'write', action: 'disabled' },
            { tool: 'delete', action: 'escalate' },
          ],
        },
      })
      .build();
    assert.deepEqual(desiredMCPServer(s, new Map(), mcpServersPath).fields.tool_rules, [
      { tool: 'read', action: 'enabled', enabled: true },
      { tool: 'write', action: 'disabled', enabled: false },
      { tool: 'delete', action: 'escalate', enabled: false },
    ]);
  });

  describe('tool rules as Coder stores them', () => {
    const rules = [
      { tool: 'read', action: 'enabled' as const },
      { tool: 'delete', action: 'escalate' as const },
    ];
    const desired = desiredMCPServer(
      anMcpServer()
        .withSpec({ ...withKey.spec, tools: { rules } })
        .build(),
      values,
      mcpServersPath,
    );
    const rows: { shape: string; stored: Schemas['MCPServerConfig']['tool_rules']; patch: boolean }[] = [
      {
        shape: '{tool, action, enabled}, in another order',
        stored: [
          { tool: 'delete', action: 'escalate', enabled: false },
          { tool: 'read', action: 'enabled', enabled: true },
        ],
        patch: false,
      },
      {
        shape: '{tool, enabled}, which holds escalate as disabled',
        stored: [
          { tool: 'read', enabled: true },
          { tool: 'delete', enabled: false },
        ],
        patch: false,
      },
      {
        shape: '{tool, enabled} with read disabled',
        stored: [
          { tool: 'read', enabled: false },
          { tool: 'delete', enabled: false },
        ],
        patch: true,
      },
      { shape: '{tool, action, enabled} with escalate lost', stored: [{ tool: 'read', action: 'enabled', enabled: true }], patch: true },
      { shape: 'none', stored: null, patch: true },
    ];
    for (const row of rows) {
      it(`${row.patch ? 'sends the rules again' : 'sends nothing'} when Coder holds ${row.shape}`, () => {
        const patch = updateRequest(existing({ tool_rules: row.stored }), desired, hashes, { 'apiKey.value': 'h1' });
        assert.deepEqual(patch, row.patch ? { tool_rules: desired.fields.tool_rules } : undefined);
      });
    }
  });
});
