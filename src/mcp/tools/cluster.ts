// Tools about plain Kubernetes objects: a Service, the Events of an object, a pod's log, and whether
// the API server answers at all.
import type { CoreV1EventList, V1NamespaceList, V1Service } from '@kubernetes/client-node';
import { z } from 'zod';
import { KubeApiError, parseStatus, readText } from '../../runtime/kube-http.ts';
import { defineTool, kubeRead, requiredName, resourcePath, rfc3339Seconds } from '../tool.ts';

export const getServiceStatus = defineTool({
  name: 'get_service_status',
  description: 'Get Kubernetes Service status by namespace and name.',
  input: { namespace: requiredName('namespace'), name: requiredName('name') },
  async run({ namespace, name }, ctx) {
    const service = await kubeRead<V1Service>(
      ctx,
      { verb: 'get', group: '', resource: 'services', namespace, name },
      resourcePath('v1', 'services', namespace, name),
    );
    return {
      name: service.metadata?.name ?? '',
      namespace: service.metadata?.namespace ?? '',
      type: service.spec?.type ?? '',
      clusterIP: service.spec?.clusterIP,
      ports: (service.spec?.ports ?? []).map((p) => ({
        name: p.name,
        port: p.port,
        targetPort: p.targetPort === undefined ? undefined : String(p.targetPort),
        nodePort: p.nodePort,
        protocol: p.protocol,
      })),
      annotations: service.metadata?.annotations,
    };
  },
});

const defaultEventLimit = 200;
const maxEventLimit = 1000;

export const getEvents = defineTool({
  name: 'get_events',
  description: 'Get Kubernetes events for an object.',
  input: {
    namespace: requiredName('namespace'),
    name: requiredName('name').optional(),
    kind: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9]{0,62}$/, 'kind must be a Kubernetes kind such as Pod or CoderControlPlane')
      .optional()
      .describe('kind of the involved object, e.g. Pod'),
    limit: z.number().int().optional().describe(`at most this many events (default ${defaultEventLimit}, at most ${maxEventLimit})`),
    continue: z.string().max(4096).optional().describe('the continue token of a previous answer'),
  },
  async run({ namespace, name, kind, limit, continue: token }, ctx) {
    const fields = [name ? `involvedObject.name=${name}` : '', kind ? `involvedObject.kind=${kind}` : ''].filter(Boolean);
    const events = await kubeRead<CoreV1EventList>(
      ctx,
      { verb: 'list', group: '', resource: 'events', namespace },
      resourcePath('v1', 'events', namespace),
      {
        query: {
          fieldSelector: fields.join(','),
          limit: !limit || limit <= 0 ? defaultEventLimit : Math.min(limit, maxEventLimit),
          continue: token,
        },
      },
    );
    return {
      items: events.items.map((e) => ({
        type: e.type ?? '',
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.count ?? 0,
        lastTimestamp: rfc3339Seconds(e.eventTime ?? e.lastTimestamp ?? e.firstTimestamp),
      })),
      ...(events.metadata?._continue ? { continue: events.metadata._continue } : {}),
    };
  },
});

const maxLogBytes = 1024 * 1024;
const defaultTailLines = 2000;

export const getPodLogs = defineTool({
  name: 'get_pod_logs',
  description: 'Get logs from a pod.',
  input: {
    namespace: requiredName('namespace'),
    name: requiredName('name'),
    tailLines: z.number().int().optional().describe(`the last this many lines (default ${defaultTailLines})`),
    limitBytes: z.number().int().optional().describe(`at most this many bytes (default and cap ${maxLogBytes})`),
    container: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'container must be a container name')
      .optional(),
  },
  async run({ namespace, name, tailLines, limitBytes, container }, ctx) {
    const limit = limitBytes !== undefined && limitBytes > 0 && limitBytes < maxLogBytes ? limitBytes : maxLogBytes;
    await ctx.access.require({ verb: 'get', group: '', resource: 'pods', subresource: 'log', namespace, name });
    const path = `${resourcePath('v1', 'pods', namespace, name)}/log`;
    const response = await ctx.kube.open('GET', path, {
      query: { tailLines: tailLines ?? defaultTailLines, container, limitBytes: limit + 1 },
      timeoutMs: 30_000,
    });
    const text = await readText(response, AbortSignal.timeout(30_000));
    const code = response.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new KubeApiError(code, parseStatus(text), 'GET', path);
    const bytes = Buffer.from(text);
    const logs = bytes.length > limit ? `${bytes.subarray(0, limit).toString('utf8')}\n(truncated)` : text;
    return { logs };
  },
});

export const checkHealth = defineTool({
  name: 'check_health',
  description: 'Check MCP server health and Kubernetes API connectivity.',
  input: {},
  async run(_input, ctx) {
    await kubeRead<V1NamespaceList>(ctx, { verb: 'list', group: '', resource: 'namespaces' }, resourcePath('v1', 'namespaces'), {
      query: { limit: 1 },
    });
    return { status: 'ok', version: 'dev' };
  },
});
