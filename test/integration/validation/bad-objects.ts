import { gatewayKeyManifest } from '../../fixtures/coderaigatewaykey.ts';
import { providerManifest } from '../../fixtures/coderaiprovider.ts';
import { controlPlaneManifest, database } from '../../fixtures/codercontrolplane.ts';
import { mcpServerManifest } from '../../fixtures/codermcpserver.ts';
import { provisionerManifest } from '../../fixtures/coderprovisioner.ts';
import { templateTestManifest } from '../../fixtures/codertemplatetest.ts';
import { workspaceProxyManifest } from '../../fixtures/coderworkspaceproxy.ts';
import type { Manifest } from '../../fixtures/object-builder.ts';
// Objects the API server must reject, beyond the CEL rules (those rows come from rule-cases.ts): wrong
// types, missing required fields, bad enums, patterns and bounds, formats, duplicate list keys, unknown
// fields and bad metadata, across the kinds.

export interface Row {
  name: string;
  obj: Manifest;
}

const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const without = (obj: Manifest, field: string): Manifest => {
  delete obj.spec[field];
  return obj;
};

export const badObjects: Row[] = [
  // CoderControlPlane
  { name: 'replicas as a string', obj: controlPlaneManifest({ replicas: '3' }) },
  { name: 'fractional replicas (int32)', obj: controlPlaneManifest({ replicas: 1.5 }) },
  { name: 'replicas beyond int32', obj: controlPlaneManifest({ replicas: 3_000_000_000 }) },
  { name: 'boolean replicas', obj: controlPlaneManifest({ replicas: true }) },
  { name: 'service annotation that is a number', obj: controlPlaneManifest({ service: { annotations: { a: 1 } } }) },
  { name: 'extraEnv entry without a name', obj: controlPlaneManifest({ extraEnv: [{ value: 'x' }] }) },
  { name: 'extraEnv as a string', obj: controlPlaneManifest({ extraEnv: 'CODER_VERBOSE=true' }) },
  { name: 'database without connectionSecretRef', obj: controlPlaneManifest({ database: {} }) },
  { name: 'connectionSecretRef without key', obj: controlPlaneManifest({ database: { connectionSecretRef: { name: 'db' } } }) },
  { name: 'connectionSecretRef with empty name and key', obj: controlPlaneManifest({ database: database('', '') }) },
  {
    name: 'gateway without parentRefs entries',
    obj: controlPlaneManifest({ expose: { gateway: { host: 'coder.example.com', parentRefs: [] } } }),
  },
  { name: 'ingress without host', obj: controlPlaneManifest({ expose: { ingress: {} } }) },
  { name: 'ownerUserID that is not a UUID', obj: controlPlaneManifest({ templateTests: { ownerUserID: 'not-a-uuid' } }) },
  { name: 'resource quantity that is a boolean (int-or-string)', obj: controlPlaneManifest({ resources: { limits: { cpu: true } } }) },
  { name: 'capability that is a number', obj: controlPlaneManifest({ securityContext: { capabilities: { add: [1] } } }) },
  { name: 'fractional tolerationSeconds (int64)', obj: controlPlaneManifest({ tolerations: [{ key: 'k', tolerationSeconds: 1.5 }] }) },
  { name: 'spec as a list', obj: { ...controlPlaneManifest(), spec: [] as unknown as Record<string, unknown> } },
  { name: 'boolean field as a string', obj: controlPlaneManifest({ envUseClusterAccessURL: 'yes' }) },
  { name: 'unknown spec fields', obj: controlPlaneManifest({ foo: 1, service: { bar: 2 } }) },
  {
    name: 'unknown field inside a Kubernetes type',
    obj: controlPlaneManifest({ extraEnv: [{ name: 'A', bogus: 1, valueFrom: { secretKeyRef: { name: 'a', key: 'b', extra: 3 } } }] }),
  },
  {
    name: 'unknown top-level and metadata fields',
    obj: { ...controlPlaneManifest(), extra: true, metadata: { name: 'coder', namespace: 'coder', foo: 1 } },
  },
  { name: 'upper-case metadata.name', obj: controlPlaneManifest({}, 'Coder') },
  {
    name: 'invalid label key and value',
    obj: { ...controlPlaneManifest(), metadata: { name: 'coder', namespace: 'coder', labels: { '-bad': 'x', ok: '-bad-' } } },
  },
  {
    name: 'label value that is a number',
    obj: { ...controlPlaneManifest(), metadata: { name: 'coder', namespace: 'coder', labels: { a: 5 } } },
  },
  { name: 'no name', obj: { ...controlPlaneManifest(), metadata: { namespace: 'coder' } } },
  {
    name: 'deep Kubernetes types: node selector term without matchExpressions key, spread constraint without whenUnsatisfiable',
    obj: controlPlaneManifest({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ operator: 'In' }] }] },
        },
      },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'k' }],
    }),
  },
  {
    name: 'finalizer with a space',
    obj: { ...controlPlaneManifest(), metadata: { name: 'coder', namespace: 'coder', finalizers: ['bad finalizer'] } },
  },
  {
    name: 'unknown field inside an ownerReference',
    obj: {
      ...controlPlaneManifest(),
      metadata: {
        name: 'coder',
        namespace: 'coder',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '1', foo: 2 }],
      },
    },
  },
  // CoderAIGatewayKey
  {
    name: 'null destination and an object as deletionPolicy',
    obj: gatewayKeyManifest({ destinations: [{ name: 'a' }, null], deletionPolicy: { a: 1 } }),
  },
  { name: 'gateway key without destinations', obj: without(gatewayKeyManifest(), 'destinations') },
  { name: 'gateway key with 9 destinations', obj: gatewayKeyManifest({ destinations: times(9, (i) => ({ name: `d${i}` })) }) },
  { name: 'gateway key with no destination', obj: gatewayKeyManifest({ destinations: [] }) },
  { name: 'gateway key with a destination twice', obj: gatewayKeyManifest({ destinations: [{ name: 'a' }, { name: 'a', key: 'other' }] }) },
  { name: 'keyName with an underscore', obj: gatewayKeyManifest({ keyName: 'Bad_Key' }) },
  { name: 'keyName of 57 characters', obj: gatewayKeyManifest({ keyName: 'k'.repeat(57) }) },
  { name: 'deletionPolicy not in its enum', obj: gatewayKeyManifest({ deletionPolicy: 'Keep' }) },
  { name: 'empty controlPlaneRef name', obj: gatewayKeyManifest({ controlPlaneRef: { name: '' } }) },
  {
    name: 'rotateAfter beyond the range of a duration (rule evaluation error)',
    obj: gatewayKeyManifest({ rotation: { rotateAfter: '2562048h' } }),
  },
  {
    name: 'gateway key without spec',
    obj: {
      apiVersion: 'coder.com/v1alpha1',
      kind: 'CoderAIGatewayKey',
      metadata: { name: 'gw', namespace: 'coder' },
    } as unknown as Manifest,
  },
  // CoderAIProvider
  { name: 'provider type not in its enum', obj: providerManifest({ type: 'gpt' }) },
  { name: 'provider without type', obj: without(providerManifest(), 'type') },
  { name: 'provider type as a number and deletionPolicy as a number', obj: providerManifest({ type: 5, deletionPolicy: 7 }) },
  { name: 'six apiKeys', obj: providerManifest({ apiKeys: times(6, (i) => ({ secretKeyRef: { name: 'k', key: `k${i}` } })) }) },
  {
    name: 'bedrock roleARN that is no IAM role',
    obj: providerManifest({ bedrock: { region: 'us-east-1', roleARN: 'arn:aws:s3:::bucket' } }),
  },
  { name: 'header name with a space', obj: providerManifest({ upstreamHeaders: [{ name: 'Bad Header', value: 'v' }] }) },
  {
    name: 'same header twice (list key and CEL rule)',
    obj: providerManifest({
      upstreamHeaders: [
        { name: 'X-A', value: 'a' },
        { name: 'X-A', value: 'b' },
      ],
    }),
  },
  { name: 'enabled as a string', obj: providerManifest({ enabled: 'true' }) },
  // CoderMCPServer
  { name: 'MCP server without displayName and url', obj: without(without(mcpServerManifest(), 'displayName'), 'url') },
  {
    name: 'empty displayName, url and tool names, numbers as tools',
    obj: mcpServerManifest({ displayName: '', url: '', tools: { allow: [''], deny: [1, 1] } }),
  },
  { name: 'transport not in its enum', obj: mcpServerManifest({ transport: 'websocket' }) },
  { name: 'tool allowed twice (set)', obj: mcpServerManifest({ tools: { allow: ['a', 'b', 'a', 'a'] } }) },
  { name: 'tool rule without action', obj: mcpServerManifest({ tools: { rules: [{ tool: 't' }] } }) },
  { name: 'auth type not in its enum', obj: mcpServerManifest({ auth: { type: 'basic' } }) },
  {
    name: 'apiKey header with a space',
    obj: mcpServerManifest({ auth: { type: 'apiKey', apiKey: { header: 'X Key', valueSecretRef: { name: 's' } } } }),
  },
  // CoderProvisioner (no CEL rules: no "rules were not checked" error)
  { name: 'provisioner without controlPlaneRef', obj: without(provisionerManifest(), 'controlPlaneRef') },
  { name: 'resource quantity that is not a quantity', obj: provisionerManifest({ resources: { requests: { memory: '1 GB' } } }) },
  { name: 'provisioner replicas as a string', obj: provisionerManifest({ replicas: 'two' }) },
  { name: 'provisioner tag that is a number', obj: provisionerManifest({ tags: { scope: 1 } }) },
  { name: 'provisioner key name over 128 characters', obj: provisionerManifest({ key: { name: 'k'.repeat(129) } }) },
  // CoderTemplateTest
  { name: 'controlPlaneRef name that is not a DNS subdomain', obj: templateTestManifest({ controlPlaneRef: { name: 'Coder_1' } }) },
  { name: 'template without organization', obj: templateTestManifest({ template: 'docker' }) },
  { name: 'version id that is not a UUID', obj: templateTestManifest({ version: { id: 'not-a-uuid' } }) },
  { name: 'timeoutSeconds below 60', obj: templateTestManifest({ timeoutSeconds: 30 }) },
  { name: 'timeoutSeconds above 7200', obj: templateTestManifest({ timeoutSeconds: 8000 }) },
  {
    name: 'parameter given twice',
    obj: templateTestManifest({
      parameters: [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
      ],
    }),
  },
  { name: 'version name with a space', obj: templateTestManifest({ version: { name: 'v 1' } }) },
  {
    name: 'non-ASCII template, control character in version, fractional timeout below the minimum',
    obj: templateTestManifest({ template: 'é.docker', version: { name: 'v\u0001' }, timeoutSeconds: 59.5 }),
  },
  // CoderWorkspaceProxy (no CEL rules)
  { name: 'bootstrap without coderURL', obj: workspaceProxyManifest({ bootstrap: { credentialsSecretRef: { name: 's' } } }) },
  { name: 'derpOnly as a string', obj: workspaceProxyManifest({ derpOnly: 'no' }) },
  { name: 'proxy extraEnv entry without a name', obj: workspaceProxyManifest({ extraEnv: [{}] }) },
  {
    name: 'unknown bootstrap field',
    obj: workspaceProxyManifest({ bootstrap: { coderURL: 'http://coder', credentialsSecretRef: { name: 's' }, foo: 1 } }),
  },
];

/** Valid objects beyond the samples and the rule rows' accepted objects. */
export const goodObjects: Row[] = [
  {
    name: 'control plane with nulls where defaults apply',
    obj: controlPlaneManifest({ replicas: null, service: { annotations: { drop: null } }, readinessProbe: null }),
  },
  {
    name: 'control plane with many fields',
    obj: controlPlaneManifest({
      replicas: 2,
      image: 'ghcr.io/coder/coder:v2.20.0',
      database: database('db', 'uri'),
      extraEnv: [
        { name: 'CODER_VERBOSE', value: 'true' },
        { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
      resources: { limits: { cpu: 2, memory: '4Gi' }, requests: { cpu: '500m' } },
      expose: { gateway: { host: 'coder.example.com', parentRefs: [{ name: 'gw', namespace: 'gateways' }] } },
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }],
      templateTests: { ownerUserID: '8A0F5C2E7B1D4C3A9E6F0D2B4A6C8E1F' },
    }),
  },
  {
    // What the Go original's CRDs accepted and Kubernetes accepts too (upgrade compatibility).
    name: 'control plane with empty enum values Kubernetes accepts, 300 env entries and quantities',
    obj: controlPlaneManifest({
      tolerations: [
        { key: 'k', effect: '' },
        { key: 'j', operator: '' },
      ],
      volumes: [{ name: 'v', image: { reference: 'registry.example.com/data:1', pullPolicy: '' } }],
      extraEnv: times(300, (i) => ({ name: `V${i}`, value: 'x' })),
      resources: { limits: { cpu: '1.5', memory: '1e9' }, requests: { memory: '512Mi', 'ephemeral-storage': 2 } },
    }),
  },
  {
    name: 'provisioner whose controlPlaneRef has no name',
    obj: provisionerManifest({ controlPlaneRef: {} }),
  },
  {
    name: 'provisioner with tags and key',
    obj: provisionerManifest({ tags: { scope: 'organization' }, key: { name: 'k8s' }, replicas: 0 }),
  },
  {
    name: 'workspace proxy with bootstrap',
    obj: workspaceProxyManifest({ bootstrap: { coderURL: 'http://coder.coder.svc', credentialsSecretRef: { name: 's' } } }),
  },
  {
    name: 'object named by generateName',
    obj: { ...provisionerManifest(), metadata: { generateName: 'provisioner-', namespace: 'coder' } },
  },
  {
    name: 'labels and annotations',
    obj: {
      ...workspaceProxyManifest(),
      metadata: {
        name: 'eu-west',
        namespace: 'coder',
        labels: { 'app.kubernetes.io/name': 'proxy' },
        annotations: { 'example.com/Note': 'x y' },
      },
    },
  },
];

export interface UpdateRow extends Row {
  /** The object stored before the update. */
  old: Manifest;
}

/** Updates beyond the transition rules' rows: schema errors, and rules that are not transition rules. */
export const updates: UpdateRow[] = [
  { name: 'update to replicas as a string', old: controlPlaneManifest(), obj: controlPlaneManifest({ replicas: '3' }) },
  {
    name: 'update adding CODER_PG_CONNECTION_URL next to spec.database',
    old: controlPlaneManifest({ database: database('db', 'uri') }),
    obj: controlPlaneManifest({ database: database('db', 'uri'), extraEnv: [{ name: 'CODER_PG_CONNECTION_URL', value: 'x' }] }),
  },
  {
    name: 'template test update below the minimum timeout (and immutable)',
    old: templateTestManifest(),
    obj: templateTestManifest({ timeoutSeconds: 1 }),
  },
  {
    name: 'provider type changed to a value not in the enum (rules not checked)',
    old: providerManifest(),
    obj: providerManifest({ type: 'gpt' }),
  },
  {
    name: 'update of labels only',
    old: templateTestManifest(),
    obj: { ...templateTestManifest(), metadata: { name: 'docker-active', namespace: 'coder', labels: { team: 'a' } } },
  },
  { name: 'gateway key update with an unknown field', old: gatewayKeyManifest(), obj: gatewayKeyManifest({ bogus: 1 }) },
];
