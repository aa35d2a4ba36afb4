import { secretNameClaims } from '../../../src/controllers/shared/claimed-secret-names.ts';
import { gatewayKeyManifest } from '../../fixtures/coderaigatewaykey.ts';
import { providerManifest } from '../../fixtures/coderaiprovider.ts';
import { controlPlaneManifest, database } from '../../fixtures/codercontrolplane.ts';
import { mcpServerManifest } from '../../fixtures/codermcpserver.ts';
import { templateTestManifest } from '../../fixtures/codertemplatetest.ts';
import { workspaceProxyManifest } from '../../fixtures/coderworkspaceproxy.ts';
import type { Manifest } from '../../fixtures/object-builder.ts';
// Objects that each x-kubernetes-validations rule accepts and rejects: the unit test of every rule, and
// rows of the integration test that compares the validators with the API server.

export interface Example {
  obj: Manifest;
  /** The stored object, for an update. */
  old?: Manifest;
}
export interface Rejection extends Example {
  path: string;
  /** The value the message shows: the rule's self when it is a scalar. */
  value?: unknown;
}
export interface RuleCase {
  kind: string;
  /** The start of the rule's message, which names the rule. */
  rule: string;
  accepts: Example[];
  rejects: Rejection[];
}

const header = (name: string, value = 'v') => ({ name, value });
const secretRef = (name: string, key?: string) => ({ name, ...(key ? { key } : {}) });
const oauth2 = (o: Record<string, unknown>) => ({ auth: { type: 'oauth2', oauth2: o } });
const customHeaders = (o: Record<string, unknown>) => ({ auth: { type: 'customHeaders', customHeaders: o } });
const urls = {
  clientID: 'id',
  authURL: 'https://github.com/login/oauth/authorize',
  tokenURL: 'https://github.com/login/oauth/access_token',
};

export const ruleCases: RuleCase[] = [
  // CoderAIGatewayKey
  {
    kind: 'CoderAIGatewayKey',
    rule: 'metadata.name is not a valid key name',
    accepts: [{ obj: gatewayKeyManifest() }, { obj: gatewayKeyManifest({ keyName: 'gateway-key' }, 'gateway.example') }],
    rejects: [
      { obj: gatewayKeyManifest({}, 'gateway.example'), path: '<nil>' },
      { obj: gatewayKeyManifest({}, `k${'x'.repeat(56)}`), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'the key name (spec.keyName, default metadata.name) cannot be changed',
    accepts: [
      { obj: gatewayKeyManifest({ keyName: 'gateway' }), old: gatewayKeyManifest() },
      { obj: gatewayKeyManifest({ keyName: 'same' }), old: gatewayKeyManifest({ keyName: 'same' }) },
      { obj: gatewayKeyManifest({ keyName: 'other' }) },
    ],
    rejects: [
      { obj: gatewayKeyManifest({ keyName: 'other' }), old: gatewayKeyManifest(), path: '<nil>' },
      { obj: gatewayKeyManifest(), old: gatewayKeyManifest({ keyName: 'first' }), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'rotateAfter must be a duration',
    accepts: [
      { obj: gatewayKeyManifest({ rotation: { rotateAfter: '2160h' } }) },
      { obj: gatewayKeyManifest({ rotation: { rotateAfter: '1h0m0.5s' } }) },
    ],
    rejects: [
      { obj: gatewayKeyManifest({ rotation: { rotateAfter: '30m' } }), path: 'spec.rotation.rotateAfter', value: '30m' },
      { obj: gatewayKeyManifest({ rotation: { rotateAfter: '90 days' } }), path: 'spec.rotation.rotateAfter', value: '90 days' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'gracePeriod must be a duration',
    accepts: [
      { obj: gatewayKeyManifest({ rotation: { gracePeriod: '0s' } }) },
      { obj: gatewayKeyManifest({ rotation: { gracePeriod: '24h' } }) },
    ],
    rejects: [
      { obj: gatewayKeyManifest({ rotation: { gracePeriod: '24h1s' } }), path: 'spec.rotation.gracePeriod', value: '24h1s' },
      { obj: gatewayKeyManifest({ rotation: { gracePeriod: '-1m' } }), path: 'spec.rotation.gracePeriod', value: '-1m' },
    ],
  },
  // One row per claim of the shared module, so the schema's suffixes cannot drift from the operator's.
  ...secretNameClaims.map((claim): RuleCase => ({
    kind: 'CoderAIGatewayKey',
    rule: `the Secret name is claimed by ${claim.kind}`,
    accepts: [
      { obj: gatewayKeyManifest({ destinations: [{ name: `gateway${claim.suffix}-copy` }] }) },
      { obj: gatewayKeyManifest({ destinations: [{ name: claim.suffix.slice(1) }] }) },
    ],
    rejects: [
      { obj: gatewayKeyManifest({ destinations: [{ name: `coder${claim.suffix}` }] }), path: 'spec.destinations[0].name' },
      {
        obj: gatewayKeyManifest({ destinations: [{ name: 'gateway-key' }, { name: `x${claim.suffix}`, key: 'k' }] }),
        path: 'spec.destinations[1].name',
      },
    ],
  })),
  // CoderAIProvider
  {
    kind: 'CoderAIProvider',
    rule: 'metadata.name is not a valid Coder provider name',
    accepts: [{ obj: providerManifest() }, { obj: providerManifest({ providerName: 'team-a' }, 'team.a') }],
    rejects: [{ obj: providerManifest({}, 'team.a'), path: '<nil>' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the provider name (spec.providerName, default metadata.name) cannot be changed',
    accepts: [{ obj: providerManifest({ providerName: 'anthropic' }), old: providerManifest() }],
    rejects: [{ obj: providerManifest({ providerName: 'claude' }), old: providerManifest(), path: '<nil>' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the provider named chatgpt is the ChatGPT subscription provider',
    accepts: [
      { obj: providerManifest({ type: 'openai' }, 'chatgpt') },
      { obj: providerManifest({ type: 'openai', apiKeys: [] }, 'chatgpt') },
    ],
    rejects: [
      { obj: providerManifest({}, 'chatgpt'), path: '<nil>' },
      { obj: providerManifest({ type: 'openai', apiKeys: [{ secretKeyRef: secretRef('k', 'a') }] }, 'chatgpt'), path: '<nil>' },
      { obj: providerManifest({ type: 'anthropic', providerName: 'chatgpt' }, 'subscription'), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'apiKeys must be empty for type bedrock',
    accepts: [{ obj: providerManifest({ type: 'copilot', apiKeys: [] }) }],
    rejects: [{ obj: providerManifest({ type: 'copilot', apiKeys: [{ secretKeyRef: secretRef('k') }] }), path: 'spec.apiKeys' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'bedrock may be set only for type bedrock or anthropic',
    accepts: [{ obj: providerManifest({ bedrock: { region: 'us-west-2' } }) }],
    rejects: [{ obj: providerManifest({ type: 'openai', bedrock: { region: 'us-west-2' } }), path: 'spec.bedrock' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'type bedrock needs spec.bedrock',
    accepts: [{ obj: providerManifest({ type: 'bedrock', bedrock: { region: 'us-west-2' } }) }],
    rejects: [{ obj: providerManifest({ type: 'bedrock', baseURL: 'https://bedrock.example.com' }), path: 'spec' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'baseURL is required for this type',
    accepts: [
      { obj: providerManifest({ type: 'azure', baseURL: 'https://example.openai.azure.com/' }) },
      { obj: providerManifest({ type: 'openai' }) },
    ],
    rejects: [
      { obj: providerManifest({ type: 'azure' }), path: 'spec.baseURL' },
      { obj: providerManifest({ type: 'bedrock', bedrock: { model: 'm' } }), path: 'spec.baseURL' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'type cannot be changed',
    accepts: [{ obj: providerManifest({ displayName: 'Claude' }), old: providerManifest() }],
    rejects: [{ obj: providerManifest({ type: 'openai' }), old: providerManifest(), path: 'spec.type', value: 'openai' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'baseURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: providerManifest({ baseURL: 'http://llm.internal:8080/v1?x=1' }) }],
    rejects: [
      { obj: providerManifest({ baseURL: 'ftp://example.com' }), path: 'spec.baseURL', value: 'ftp://example.com' },
      { obj: providerManifest({ baseURL: 'https://exa mple.com' }), path: 'spec.baseURL', value: 'https://exa mple.com' },
      { obj: providerManifest({ baseURL: 'https://' }), path: 'spec.baseURL', value: 'https://' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'each apiKeys entry must name a different Secret key',
    accepts: [{ obj: providerManifest({ apiKeys: [{ secretKeyRef: secretRef('k', 'a') }, { secretKeyRef: secretRef('k', 'b') }] }) }],
    rejects: [
      {
        obj: providerManifest({ apiKeys: [{ secretKeyRef: secretRef('k', 'a') }, { secretKeyRef: secretRef('k', 'a') }] }),
        path: 'spec.apiKeys',
      },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'set both accessKeyIDSecretRef and secretAccessKeySecretRef',
    accepts: [
      {
        obj: providerManifest({
          type: 'bedrock',
          bedrock: { region: 'eu-west-1', accessKeyIDSecretRef: secretRef('aws'), secretAccessKeySecretRef: secretRef('aws') },
        }),
      },
    ],
    rejects: [
      {
        obj: providerManifest({ type: 'bedrock', bedrock: { region: 'eu-west-1', secretAccessKeySecretRef: secretRef('aws') } }),
        path: 'spec.bedrock',
      },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'header names must be unique, ignoring case',
    accepts: [{ obj: providerManifest({ upstreamHeaders: [header('X-Team'), header('X-Env')] }) }],
    rejects: [{ obj: providerManifest({ upstreamHeaders: [header('X-Team'), header('x-team')] }), path: 'spec.upstreamHeaders' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'Authorization, X-Api-Key, Host, Cookie',
    accepts: [{ obj: providerManifest({ upstreamHeaders: [header('X-AI-Bridge')] }) }],
    rejects: [
      { obj: providerManifest({ upstreamHeaders: [header('X-Team'), header('AUTHORIZATION')] }), path: 'spec.upstreamHeaders[1].name' },
      { obj: providerManifest({ upstreamHeaders: [header('x-ai-bridge-actor-id')] }), path: 'spec.upstreamHeaders[0].name' },
      { obj: providerManifest({ upstreamHeaders: [header('Transfer-Encoding')] }), path: 'spec.upstreamHeaders[0].name' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the only placeholder allowed in a value is {{chat_id}}',
    accepts: [{ obj: providerManifest({ upstreamHeaders: [header('X-Chat', 'chat-{{chat_id}}')] }) }],
    rejects: [{ obj: providerManifest({ upstreamHeaders: [header('X-User', '{{user}}')] }), path: 'spec.upstreamHeaders[0].value' }],
  },
  // CoderControlPlane
  {
    kind: 'CoderControlPlane',
    rule: 'spec.extraEnv must not set CODER_PG_CONNECTION_URL',
    accepts: [
      { obj: controlPlaneManifest({ extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'postgres://db' }] }) },
      { obj: controlPlaneManifest({ database: database('db', 'uri'), extraEnv: [{ name: 'CODER_VERBOSE', value: 'true' }] }) },
    ],
    rejects: [
      {
        obj: controlPlaneManifest({ database: database('db', 'uri'), extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'x' }] }),
        path: 'spec',
      },
    ],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'each envFrom entry may specify at most one of configMapRef or secretRef',
    accepts: [{ obj: controlPlaneManifest({ envFrom: [{ configMapRef: { name: 'a' } }, { secretRef: { name: 'b' } }] }) }],
    rejects: [
      { obj: controlPlaneManifest({ envFrom: [{ configMapRef: { name: 'a' }, secretRef: { name: 'b' } }] }), path: 'spec.envFrom' },
    ],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'connectionSecretRef.name must not be empty',
    accepts: [{ obj: controlPlaneManifest({ database: database('coder-db-app', 'uri') }) }],
    rejects: [{ obj: controlPlaneManifest({ database: database('', 'uri') }), path: 'spec.database.connectionSecretRef.name' }],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'connectionSecretRef.key must not be empty',
    accepts: [{ obj: controlPlaneManifest({ database: database('coder-db-app', 'uri') }) }],
    rejects: [{ obj: controlPlaneManifest({ database: database('coder-db-app', '') }), path: 'spec.database.connectionSecretRef.key' }],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'only one of ingress or gateway may be set',
    accepts: [{ obj: controlPlaneManifest({ expose: { ingress: { host: 'coder.example.com' } } }) }],
    rejects: [
      {
        obj: controlPlaneManifest({ expose: { ingress: { host: 'a' }, gateway: { host: 'a', parentRefs: [{ name: 'gw' }] } } }),
        path: 'spec.expose',
      },
    ],
  },
  // CoderMCPServer
  {
    kind: 'CoderMCPServer',
    rule: 'metadata.name is not a valid slug',
    accepts: [{ obj: mcpServerManifest() }, { obj: mcpServerManifest({ slug: 'github' }, 'github.com') }],
    rejects: [
      { obj: mcpServerManifest({}, 'github.com'), path: '<nil>' },
      { obj: mcpServerManifest({}, `g${'x'.repeat(64)}`), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'iconURL must be a deployment-relative path',
    accepts: [{ obj: mcpServerManifest({ iconURL: '/icon/github.svg' }) }],
    rejects: [
      { obj: mcpServerManifest({ iconURL: '//cdn.example.com/x.svg' }), path: 'spec.iconURL', value: '//cdn.example.com/x.svg' },
      { obj: mcpServerManifest({ iconURL: 'https://x/y.svg' }), path: 'spec.iconURL', value: 'https://x/y.svg' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'url must be an absolute http:// or https:// URL',
    accepts: [{ obj: mcpServerManifest({ url: 'http://mcp.tools.svc:8080/mcp' }) }],
    rejects: [{ obj: mcpServerManifest({ url: 'mcp.example.com' }), path: 'spec.url', value: 'mcp.example.com' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set only the block that auth.type names',
    accepts: [
      { obj: mcpServerManifest({ auth: { type: 'oauth2' } }) },
      { obj: mcpServerManifest({ auth: { type: 'apiKey', apiKey: { valueSecretRef: secretRef('k') } } }) },
      { obj: mcpServerManifest({ auth: { type: 'externalAuth', externalAuth: { providerID: 'github' } } }) },
      { obj: mcpServerManifest({ auth: { type: 'userOIDC' } }) },
    ],
    rejects: [
      { obj: mcpServerManifest({ auth: { type: 'apiKey' } }), path: 'spec.auth' },
      { obj: mcpServerManifest({ auth: { type: 'none', oauth2: {} } }), path: 'spec.auth' },
      { obj: mcpServerManifest({ auth: { type: 'oauth2', externalAuth: { providerID: 'github' } } }), path: 'spec.auth' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set clientID, authURL and tokenURL together',
    accepts: [{ obj: mcpServerManifest(oauth2(urls)) }, { obj: mcpServerManifest(oauth2({ scopes: 'repo' })) }],
    rejects: [{ obj: mcpServerManifest(oauth2({ clientID: 'id', authURL: urls.authURL })), path: 'spec.auth.oauth2' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'clientSecretRef needs clientID',
    accepts: [{ obj: mcpServerManifest(oauth2({ ...urls, clientSecretRef: secretRef('s') })) }],
    rejects: [{ obj: mcpServerManifest(oauth2({ clientSecretRef: secretRef('s') })), path: 'spec.auth.oauth2.clientSecretRef' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'authURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: mcpServerManifest(oauth2(urls)) }],
    rejects: [
      {
        obj: mcpServerManifest(oauth2({ ...urls, authURL: 'github.com/login' })),
        path: 'spec.auth.oauth2.authURL',
        value: 'github.com/login',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'tokenURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: mcpServerManifest(oauth2(urls)) }],
    rejects: [
      { obj: mcpServerManifest(oauth2({ ...urls, tokenURL: 'https://a b' })), path: 'spec.auth.oauth2.tokenURL', value: 'https://a b' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'revocationURL must be an https:// URL',
    accepts: [
      { obj: mcpServerManifest(oauth2({ revocationURL: 'https://github.com/revoke' })) },
      { obj: mcpServerManifest(oauth2({ revocationURL: 'http://127.0.0.1:9000/revoke' })) },
      { obj: mcpServerManifest(oauth2({ revocationURL: 'http://[::1]/revoke' })) },
    ],
    rejects: [
      {
        obj: mcpServerManifest(oauth2({ revocationURL: 'http://github.com/revoke' })),
        path: 'spec.auth.oauth2.revocationURL',
        value: 'http://github.com/revoke',
      },
      {
        obj: mcpServerManifest(oauth2({ revocationURL: 'http://localhost.evil.com/' })),
        path: 'spec.auth.oauth2.revocationURL',
        value: 'http://localhost.evil.com/',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set at least one entry in headers or userSuppliedKeys',
    accepts: [{ obj: mcpServerManifest(customHeaders({ userSuppliedKeys: [{ name: 'X-Token' }] })) }],
    rejects: [
      { obj: mcpServerManifest(customHeaders({})), path: 'spec.auth.customHeaders' },
      { obj: mcpServerManifest(customHeaders({ headers: [] })), path: 'spec.auth.customHeaders' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'a header cannot be both in headers and in userSuppliedKeys',
    accepts: [{ obj: mcpServerManifest(customHeaders({ headers: [header('X-Org')], userSuppliedKeys: [{ name: 'X-Token' }] })) }],
    rejects: [
      {
        obj: mcpServerManifest(customHeaders({ headers: [header('X-Token')], userSuppliedKeys: [{ name: 'x-token' }] })),
        path: 'spec.auth.customHeaders.userSuppliedKeys',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'header names must be unique, ignoring case',
    accepts: [{ obj: mcpServerManifest(customHeaders({ headers: [header('X-A'), header('X-B')] })) }],
    rejects: [
      { obj: mcpServerManifest(customHeaders({ headers: [header('X-A'), header('x-a')] })), path: 'spec.auth.customHeaders.headers' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set exactly one of value or valueFrom',
    accepts: [{ obj: mcpServerManifest(customHeaders({ headers: [{ name: 'X-A', valueFrom: { secretKeyRef: secretRef('s') } }] })) }],
    rejects: [
      { obj: mcpServerManifest(customHeaders({ headers: [header('X-A'), { name: 'X-B' }] })), path: 'spec.auth.customHeaders.headers[1]' },
      {
        obj: mcpServerManifest(customHeaders({ headers: [{ name: 'X-A', value: 'v', valueFrom: { secretKeyRef: secretRef('s') } }] })),
        path: 'spec.auth.customHeaders.headers[0]',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'user-supplied header names must be unique, ignoring case',
    accepts: [{ obj: mcpServerManifest(customHeaders({ userSuppliedKeys: [{ name: 'X-A' }, { name: 'X-B' }] })) }],
    rejects: [
      {
        obj: mcpServerManifest(customHeaders({ userSuppliedKeys: [{ name: 'X-A' }, { name: 'x-A' }] })),
        path: 'spec.auth.customHeaders.userSuppliedKeys',
      },
    ],
  },
  // CoderTemplateTest
  {
    kind: 'CoderTemplateTest',
    rule: 'spec is immutable',
    accepts: [
      { obj: templateTestManifest(), old: templateTestManifest() },
      {
        // Map lists compare without regard to order, like the API server's CEL equality.
        obj: templateTestManifest({
          parameters: [
            { name: 'b', value: '2' },
            { name: 'a', value: '1' },
          ],
        }),
        old: templateTestManifest({
          parameters: [
            { name: 'a', value: '1' },
            { name: 'b', value: '2' },
          ],
        }),
      },
    ],
    rejects: [
      { obj: templateTestManifest({ timeoutSeconds: 1200 }), old: templateTestManifest(), path: 'spec' },
      {
        obj: templateTestManifest({ parameters: [{ name: 'a', value: '2' }] }),
        old: templateTestManifest({ parameters: [{ name: 'a', value: '1' }] }),
        path: 'spec',
      },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'organization and template names must each have at most 32 characters',
    accepts: [{ obj: templateTestManifest({ template: `${'o'.repeat(32)}.${'t'.repeat(32)}` }) }],
    rejects: [
      { obj: templateTestManifest({ template: `${'o'.repeat(33)}.docker` }), path: 'spec.template', value: `${'o'.repeat(33)}.docker` },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'organization and template names must not be new or create',
    accepts: [{ obj: templateTestManifest({ template: 'news.creates' }) }],
    rejects: [
      { obj: templateTestManifest({ template: 'new.docker' }), path: 'spec.template', value: 'new.docker' },
      { obj: templateTestManifest({ template: 'coder.create' }), path: 'spec.template', value: 'coder.create' },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'set exactly one of name, id, or active',
    accepts: [
      { obj: templateTestManifest({ version: { name: 'v1.2' } }) },
      { obj: templateTestManifest({ version: { id: '8a0f5c2e-7b1d-4c3a-9e6f-0d2b4a6c8e1f' } }) },
    ],
    rejects: [
      { obj: templateTestManifest({ version: {} }), path: 'spec.version' },
      { obj: templateTestManifest({ version: { name: 'v1', active: true } }), path: 'spec.version' },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'active must be true when set',
    accepts: [{ obj: templateTestManifest({ version: { active: true } }) }],
    rejects: [{ obj: templateTestManifest({ version: { active: false } }), path: 'spec.version' }],
  },
  // CoderWorkspaceProxy
  {
    kind: 'CoderWorkspaceProxy',
    rule: 'spec.bootstrap needs coderURL and credentialsSecretRef unless spec.controlPlaneRef is set',
    accepts: [
      { obj: workspaceProxyManifest({ bootstrap: { coderURL: 'http://coder', credentialsSecretRef: secretRef('admin') } }) },
      { obj: workspaceProxyManifest({ controlPlaneRef: { name: 'coder' }, bootstrap: { displayName: 'EU' } }) },
    ],
    rejects: [
      { obj: workspaceProxyManifest({ bootstrap: { credentialsSecretRef: secretRef('admin') } }), path: 'spec' },
      { obj: workspaceProxyManifest({ bootstrap: { displayName: 'EU' } }), path: 'spec' },
    ],
  },
  {
    kind: 'CoderWorkspaceProxy',
    rule: 'spec.bootstrap.coderURL and spec.bootstrap.credentialsSecretRef must not be set with spec.controlPlaneRef',
    accepts: [{ obj: workspaceProxyManifest({ controlPlaneRef: { name: 'coder' }, bootstrap: { proxyName: 'eu' } }) }],
    rejects: [
      { obj: workspaceProxyManifest({ controlPlaneRef: { name: 'coder' }, bootstrap: { coderURL: 'http://coder' } }), path: 'spec' },
      {
        obj: workspaceProxyManifest({ controlPlaneRef: { name: 'coder' }, bootstrap: { credentialsSecretRef: secretRef('admin') } }),
        path: 'spec',
      },
    ],
  },
  {
    kind: 'CoderWorkspaceProxy',
    rule: 'spec.proxySessionTokenSecretRef must not be set with spec.controlPlaneRef',
    accepts: [
      { obj: workspaceProxyManifest({ primaryAccessURL: 'https://coder.example.com', proxySessionTokenSecretRef: secretRef('t') }) },
    ],
    rejects: [
      { obj: workspaceProxyManifest({ controlPlaneRef: { name: 'coder' }, proxySessionTokenSecretRef: secretRef('t') }), path: 'spec' },
    ],
  },
];
