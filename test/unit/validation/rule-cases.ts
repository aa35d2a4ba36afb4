// Objects that each x-kubernetes-validations rule accepts and rejects: the unit test of every rule, and
// rows of the integration test that compares the validators with the API server.
import { aControlPlane, aGatewayKey, anMcpServer, aProvider, aTemplateTest, database, type Obj } from './fixtures.ts';

export interface Example {
  obj: Obj;
  /** The stored object, for an update. */
  old?: Obj;
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
    accepts: [{ obj: aGatewayKey() }, { obj: aGatewayKey({ keyName: 'gateway-key' }, 'gateway.example') }],
    rejects: [
      { obj: aGatewayKey({}, 'gateway.example'), path: '<nil>' },
      { obj: aGatewayKey({}, `k${'x'.repeat(56)}`), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'the key name (spec.keyName, default metadata.name) cannot be changed',
    accepts: [
      { obj: aGatewayKey({ keyName: 'gateway' }), old: aGatewayKey() },
      { obj: aGatewayKey({ keyName: 'same' }), old: aGatewayKey({ keyName: 'same' }) },
      { obj: aGatewayKey({ keyName: 'other' }) },
    ],
    rejects: [
      { obj: aGatewayKey({ keyName: 'other' }), old: aGatewayKey(), path: '<nil>' },
      { obj: aGatewayKey(), old: aGatewayKey({ keyName: 'first' }), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'rotateAfter must be a duration',
    accepts: [
      { obj: aGatewayKey({ rotation: { rotateAfter: '2160h' } }) },
      { obj: aGatewayKey({ rotation: { rotateAfter: '1h0m0.5s' } }) },
    ],
    rejects: [
      { obj: aGatewayKey({ rotation: { rotateAfter: '30m' } }), path: 'spec.rotation.rotateAfter', value: '30m' },
      { obj: aGatewayKey({ rotation: { rotateAfter: '90 days' } }), path: 'spec.rotation.rotateAfter', value: '90 days' },
    ],
  },
  {
    kind: 'CoderAIGatewayKey',
    rule: 'gracePeriod must be a duration',
    accepts: [{ obj: aGatewayKey({ rotation: { gracePeriod: '0s' } }) }, { obj: aGatewayKey({ rotation: { gracePeriod: '24h' } }) }],
    rejects: [
      { obj: aGatewayKey({ rotation: { gracePeriod: '24h1s' } }), path: 'spec.rotation.gracePeriod', value: '24h1s' },
      { obj: aGatewayKey({ rotation: { gracePeriod: '-1m' } }), path: 'spec.rotation.gracePeriod', value: '-1m' },
    ],
  },
  // CoderAIProvider
  {
    kind: 'CoderAIProvider',
    rule: 'metadata.name is not a valid Coder provider name',
    accepts: [{ obj: aProvider() }, { obj: aProvider({ providerName: 'team-a' }, 'team.a') }],
    rejects: [{ obj: aProvider({}, 'team.a'), path: '<nil>' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the provider name (spec.providerName, default metadata.name) cannot be changed',
    accepts: [{ obj: aProvider({ providerName: 'anthropic' }), old: aProvider() }],
    rejects: [{ obj: aProvider({ providerName: 'claude' }), old: aProvider(), path: '<nil>' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the provider named chatgpt is the ChatGPT subscription provider',
    accepts: [{ obj: aProvider({ type: 'openai' }, 'chatgpt') }, { obj: aProvider({ type: 'openai', apiKeys: [] }, 'chatgpt') }],
    rejects: [
      { obj: aProvider({}, 'chatgpt'), path: '<nil>' },
      { obj: aProvider({ type: 'openai', apiKeys: [{ secretKeyRef: secretRef('k', 'a') }] }, 'chatgpt'), path: '<nil>' },
      { obj: aProvider({ type: 'anthropic', providerName: 'chatgpt' }, 'subscription'), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'apiKeys must be empty for type bedrock',
    accepts: [{ obj: aProvider({ type: 'copilot', apiKeys: [] }) }],
    rejects: [{ obj: aProvider({ type: 'copilot', apiKeys: [{ secretKeyRef: secretRef('k') }] }), path: 'spec.apiKeys' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'bedrock may be set only for type bedrock or anthropic',
    accepts: [{ obj: aProvider({ bedrock: { region: 'us-west-2' } }) }],
    rejects: [{ obj: aProvider({ type: 'openai', bedrock: { region: 'us-west-2' } }), path: 'spec.bedrock' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'type bedrock needs spec.bedrock',
    accepts: [{ obj: aProvider({ type: 'bedrock', bedrock: { region: 'us-west-2' } }) }],
    rejects: [{ obj: aProvider({ type: 'bedrock', baseURL: 'https://bedrock.example.com' }), path: 'spec' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'baseURL is required for this type',
    accepts: [{ obj: aProvider({ type: 'azure', baseURL: 'https://example.openai.azure.com/' }) }, { obj: aProvider({ type: 'openai' }) }],
    rejects: [
      { obj: aProvider({ type: 'azure' }), path: 'spec.baseURL' },
      { obj: aProvider({ type: 'bedrock', bedrock: { model: 'm' } }), path: 'spec.baseURL' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'type cannot be changed',
    accepts: [{ obj: aProvider({ displayName: 'Claude' }), old: aProvider() }],
    rejects: [{ obj: aProvider({ type: 'openai' }), old: aProvider(), path: 'spec.type', value: 'openai' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'baseURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: aProvider({ baseURL: 'http://llm.internal:8080/v1?x=1' }) }],
    rejects: [
      { obj: aProvider({ baseURL: 'ftp://example.com' }), path: 'spec.baseURL', value: 'ftp://example.com' },
      { obj: aProvider({ baseURL: 'https://exa mple.com' }), path: 'spec.baseURL', value: 'https://exa mple.com' },
      { obj: aProvider({ baseURL: 'https://' }), path: 'spec.baseURL', value: 'https://' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'each apiKeys entry must name a different Secret key',
    accepts: [{ obj: aProvider({ apiKeys: [{ secretKeyRef: secretRef('k', 'a') }, { secretKeyRef: secretRef('k', 'b') }] }) }],
    rejects: [
      { obj: aProvider({ apiKeys: [{ secretKeyRef: secretRef('k', 'a') }, { secretKeyRef: secretRef('k', 'a') }] }), path: 'spec.apiKeys' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'set both accessKeyIDSecretRef and secretAccessKeySecretRef',
    accepts: [
      {
        obj: aProvider({
          type: 'bedrock',
          bedrock: { region: 'eu-west-1', accessKeyIDSecretRef: secretRef('aws'), secretAccessKeySecretRef: secretRef('aws') },
        }),
      },
    ],
    rejects: [
      {
        obj: aProvider({ type: 'bedrock', bedrock: { region: 'eu-west-1', secretAccessKeySecretRef: secretRef('aws') } }),
        path: 'spec.bedrock',
      },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'header names must be unique, ignoring case',
    accepts: [{ obj: aProvider({ upstreamHeaders: [header('X-Team'), header('X-Env')] }) }],
    rejects: [{ obj: aProvider({ upstreamHeaders: [header('X-Team'), header('x-team')] }), path: 'spec.upstreamHeaders' }],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'Authorization, X-Api-Key, Host, Cookie',
    accepts: [{ obj: aProvider({ upstreamHeaders: [header('X-AI-Bridge')] }) }],
    rejects: [
      { obj: aProvider({ upstreamHeaders: [header('X-Team'), header('AUTHORIZATION')] }), path: 'spec.upstreamHeaders[1].name' },
      { obj: aProvider({ upstreamHeaders: [header('x-ai-bridge-actor-id')] }), path: 'spec.upstreamHeaders[0].name' },
      { obj: aProvider({ upstreamHeaders: [header('Transfer-Encoding')] }), path: 'spec.upstreamHeaders[0].name' },
    ],
  },
  {
    kind: 'CoderAIProvider',
    rule: 'the only placeholder allowed in a value is {{chat_id}}',
    accepts: [{ obj: aProvider({ upstreamHeaders: [header('X-Chat', 'chat-{{chat_id}}')] }) }],
    rejects: [{ obj: aProvider({ upstreamHeaders: [header('X-User', '{{user}}')] }), path: 'spec.upstreamHeaders[0].value' }],
  },
  // CoderControlPlane
  {
    kind: 'CoderControlPlane',
    rule: 'spec.extraEnv must not set CODER_PG_CONNECTION_URL',
    accepts: [
      { obj: aControlPlane({ extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'postgres://db' }] }) },
      { obj: aControlPlane({ database: database('db', 'uri'), extraEnv: [{ name: 'CODER_VERBOSE', value: 'true' }] }) },
    ],
    rejects: [
      {
        obj: aControlPlane({ database: database('db', 'uri'), extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'x' }] }),
        path: 'spec',
      },
    ],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'each envFrom entry may specify at most one of configMapRef or secretRef',
    accepts: [{ obj: aControlPlane({ envFrom: [{ configMapRef: { name: 'a' } }, { secretRef: { name: 'b' } }] }) }],
    rejects: [{ obj: aControlPlane({ envFrom: [{ configMapRef: { name: 'a' }, secretRef: { name: 'b' } }] }), path: 'spec.envFrom' }],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'connectionSecretRef.name must not be empty',
    accepts: [{ obj: aControlPlane({ database: database('coder-db-app', 'uri') }) }],
    rejects: [{ obj: aControlPlane({ database: database('', 'uri') }), path: 'spec.database.connectionSecretRef.name' }],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'connectionSecretRef.key must not be empty',
    accepts: [{ obj: aControlPlane({ database: database('coder-db-app', 'uri') }) }],
    rejects: [{ obj: aControlPlane({ database: database('coder-db-app', '') }), path: 'spec.database.connectionSecretRef.key' }],
  },
  {
    kind: 'CoderControlPlane',
    rule: 'only one of ingress or gateway may be set',
    accepts: [{ obj: aControlPlane({ expose: { ingress: { host: 'coder.example.com' } } }) }],
    rejects: [
      {
        obj: aControlPlane({ expose: { ingress: { host: 'a' }, gateway: { host: 'a', parentRefs: [{ name: 'gw' }] } } }),
        path: 'spec.expose',
      },
    ],
  },
  // CoderMCPServer
  {
    kind: 'CoderMCPServer',
    rule: 'metadata.name is not a valid slug',
    accepts: [{ obj: anMcpServer() }, { obj: anMcpServer({ slug: 'github' }, 'github.com') }],
    rejects: [
      { obj: anMcpServer({}, 'github.com'), path: '<nil>' },
      { obj: anMcpServer({}, `g${'x'.repeat(64)}`), path: '<nil>' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'iconURL must be a deployment-relative path',
    accepts: [{ obj: anMcpServer({ iconURL: '/icon/github.svg' }) }],
    rejects: [
      { obj: anMcpServer({ iconURL: '//cdn.example.com/x.svg' }), path: 'spec.iconURL', value: '//cdn.example.com/x.svg' },
      { obj: anMcpServer({ iconURL: 'https://x/y.svg' }), path: 'spec.iconURL', value: 'https://x/y.svg' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'url must be an absolute http:// or https:// URL',
    accepts: [{ obj: anMcpServer({ url: 'http://mcp.tools.svc:8080/mcp' }) }],
    rejects: [{ obj: anMcpServer({ url: 'mcp.example.com' }), path: 'spec.url', value: 'mcp.example.com' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set only the block that auth.type names',
    accepts: [
      { obj: anMcpServer({ auth: { type: 'oauth2' } }) },
      { obj: anMcpServer({ auth: { type: 'apiKey', apiKey: { valueSecretRef: secretRef('k') } } }) },
      { obj: anMcpServer({ auth: { type: 'externalAuth', externalAuth: { providerID: 'github' } } }) },
      { obj: anMcpServer({ auth: { type: 'userOIDC' } }) },
    ],
    rejects: [
      { obj: anMcpServer({ auth: { type: 'apiKey' } }), path: 'spec.auth' },
      { obj: anMcpServer({ auth: { type: 'none', oauth2: {} } }), path: 'spec.auth' },
      { obj: anMcpServer({ auth: { type: 'oauth2', externalAuth: { providerID: 'github' } } }), path: 'spec.auth' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set clientID, authURL and tokenURL together',
    accepts: [{ obj: anMcpServer(oauth2(urls)) }, { obj: anMcpServer(oauth2({ scopes: 'repo' })) }],
    rejects: [{ obj: anMcpServer(oauth2({ clientID: 'id', authURL: urls.authURL })), path: 'spec.auth.oauth2' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'clientSecretRef needs clientID',
    accepts: [{ obj: anMcpServer(oauth2({ ...urls, clientSecretRef: secretRef('s') })) }],
    rejects: [{ obj: anMcpServer(oauth2({ clientSecretRef: secretRef('s') })), path: 'spec.auth.oauth2.clientSecretRef' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'authURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: anMcpServer(oauth2(urls)) }],
    rejects: [
      { obj: anMcpServer(oauth2({ ...urls, authURL: 'github.com/login' })), path: 'spec.auth.oauth2.authURL', value: 'github.com/login' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'tokenURL must be an absolute http:// or https:// URL',
    accepts: [{ obj: anMcpServer(oauth2(urls)) }],
    rejects: [{ obj: anMcpServer(oauth2({ ...urls, tokenURL: 'https://a b' })), path: 'spec.auth.oauth2.tokenURL', value: 'https://a b' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'revocationURL must be an https:// URL',
    accepts: [
      { obj: anMcpServer(oauth2({ revocationURL: 'https://github.com/revoke' })) },
      { obj: anMcpServer(oauth2({ revocationURL: 'http://127.0.0.1:9000/revoke' })) },
      { obj: anMcpServer(oauth2({ revocationURL: 'http://[::1]/revoke' })) },
    ],
    rejects: [
      {
        obj: anMcpServer(oauth2({ revocationURL: 'http://github.com/revoke' })),
        path: 'spec.auth.oauth2.revocationURL',
        value: 'http://github.com/revoke',
      },
      {
        obj: anMcpServer(oauth2({ revocationURL: 'http://localhost.evil.com/' })),
        path: 'spec.auth.oauth2.revocationURL',
        value: 'http://localhost.evil.com/',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set at least one entry in headers or userSuppliedKeys',
    accepts: [{ obj: anMcpServer(customHeaders({ userSuppliedKeys: [{ name: 'X-Token' }] })) }],
    rejects: [
      { obj: anMcpServer(customHeaders({})), path: 'spec.auth.customHeaders' },
      { obj: anMcpServer(customHeaders({ headers: [] })), path: 'spec.auth.customHeaders' },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'a header cannot be both in headers and in userSuppliedKeys',
    accepts: [{ obj: anMcpServer(customHeaders({ headers: [header('X-Org')], userSuppliedKeys: [{ name: 'X-Token' }] })) }],
    rejects: [
      {
        obj: anMcpServer(customHeaders({ headers: [header('X-Token')], userSuppliedKeys: [{ name: 'x-token' }] })),
        path: 'spec.auth.customHeaders.userSuppliedKeys',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'header names must be unique, ignoring case',
    accepts: [{ obj: anMcpServer(customHeaders({ headers: [header('X-A'), header('X-B')] })) }],
    rejects: [{ obj: anMcpServer(customHeaders({ headers: [header('X-A'), header('x-a')] })), path: 'spec.auth.customHeaders.headers' }],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'set exactly one of value or valueFrom',
    accepts: [{ obj: anMcpServer(customHeaders({ headers: [{ name: 'X-A', valueFrom: { secretKeyRef: secretRef('s') } }] })) }],
    rejects: [
      { obj: anMcpServer(customHeaders({ headers: [header('X-A'), { name: 'X-B' }] })), path: 'spec.auth.customHeaders.headers[1]' },
      {
        obj: anMcpServer(customHeaders({ headers: [{ name: 'X-A', value: 'v', valueFrom: { secretKeyRef: secretRef('s') } }] })),
        path: 'spec.auth.customHeaders.headers[0]',
      },
    ],
  },
  {
    kind: 'CoderMCPServer',
    rule: 'user-supplied header names must be unique, ignoring case',
    accepts: [{ obj: anMcpServer(customHeaders({ userSuppliedKeys: [{ name: 'X-A' }, { name: 'X-B' }] })) }],
    rejects: [
      {
        obj: anMcpServer(customHeaders({ userSuppliedKeys: [{ name: 'X-A' }, { name: 'x-A' }] })),
        path: 'spec.auth.customHeaders.userSuppliedKeys',
      },
    ],
  },
  // CoderTemplateTest
  {
    kind: 'CoderTemplateTest',
    rule: 'spec is immutable',
    accepts: [
      { obj: aTemplateTest(), old: aTemplateTest() },
      {
        // Map lists compare without regard to order, like the API server's CEL equality.
        obj: aTemplateTest({
          parameters: [
            { name: 'b', value: '2' },
            { name: 'a', value: '1' },
          ],
        }),
        old: aTemplateTest({
          parameters: [
            { name: 'a', value: '1' },
            { name: 'b', value: '2' },
          ],
        }),
      },
    ],
    rejects: [
      { obj: aTemplateTest({ timeoutSeconds: 1200 }), old: aTemplateTest(), path: 'spec' },
      {
        obj: aTemplateTest({ parameters: [{ name: 'a', value: '2' }] }),
        old: aTemplateTest({ parameters: [{ name: 'a', value: '1' }] }),
        path: 'spec',
      },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'organization and template names must each have at most 32 characters',
    accepts: [{ obj: aTemplateTest({ template: `${'o'.repeat(32)}.${'t'.repeat(32)}` }) }],
    rejects: [{ obj: aTemplateTest({ template: `${'o'.repeat(33)}.docker` }), path: 'spec.template', value: `${'o'.repeat(33)}.docker` }],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'organization and template names must not be new or create',
    accepts: [{ obj: aTemplateTest({ template: 'news.creates' }) }],
    rejects: [
      { obj: aTemplateTest({ template: 'new.docker' }), path: 'spec.template', value: 'new.docker' },
      { obj: aTemplateTest({ template: 'coder.create' }), path: 'spec.template', value: 'coder.create' },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'set exactly one of name, id, or active',
    accepts: [
      { obj: aTemplateTest({ version: { name: 'v1.2' } }) },
      { obj: aTemplateTest({ version: { id: '8a0f5c2e-7b1d-4c3a-9e6f-0d2b4a6c8e1f' } }) },
    ],
    rejects: [
      { obj: aTemplateTest({ version: {} }), path: 'spec.version' },
      { obj: aTemplateTest({ version: { name: 'v1', active: true } }), path: 'spec.version' },
    ],
  },
  {
    kind: 'CoderTemplateTest',
    rule: 'active must be true when set',
    accepts: [{ obj: aTemplateTest({ version: { active: true } }) }],
    rejects: [{ obj: aTemplateTest({ version: { active: false } }), path: 'spec.version' }],
  },
];
