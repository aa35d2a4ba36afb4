// What a tool is here: a name, the exact description, a strict input schema (unknown keys refused,
// integers not numbers), and a function from the checked input to the structured result. Every
// Kubernetes read goes through kubeRead, which asks whether the caller may do it first.
import { z } from 'zod';
import type { CoderClient } from '../coder/client.ts';
import type { KubeHttp, RequestParams } from '../runtime/kube-http.ts';
import type { CallerAccess, ResourceAttributes } from './caller-access.ts';

export interface ToolContext {
  /** The process's credentials (the operator's over HTTP, the kubeconfig's over stdio): used only after the caller's access is confirmed. */
  kube: KubeHttp;
  access: CallerAccess;
  /** The Coder client of the one usable control plane in `namespace`, or a tool error saying why not. */
  coderFor(namespace: string): Promise<CoderClient>;
}

export interface McpTool {
  name: string;
  description: string;
  input: z.ZodObject;
  run(input: never, ctx: ToolContext): Promise<Record<string, unknown>>;
}

export function defineTool<S extends z.ZodRawShape>(tool: {
  name: string;
  description: string;
  input: S;
  run(input: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<Record<string, unknown>>;
}): McpTool {
  return { ...tool, input: z.strictObject(tool.input) } as unknown as McpTool;
}

/** A Kubernetes object name (DNS subdomain): it goes into paths and selectors, so nothing else is let through. */
const objectName = (what: string) =>
  z
    .string()
    .min(1, `${what} is required`)
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, `${what} must be a Kubernetes object name (lower-case letters, digits, "-" and ".")`);

export const requiredName = (what: string) => objectName(what).describe(what);
export const optionalNamespace = z
  .union([z.literal(''), objectName('namespace')])
  .optional()
  .describe('namespace; all namespaces when absent or empty');

/** A GET on the API server, made only when the caller may do `attributes` itself. */
export async function kubeRead<T>(ctx: ToolContext, attributes: ResourceAttributes, path: string, params: RequestParams = {}): Promise<T> {
  await ctx.access.require(attributes);
  return ctx.kube.json<T>('GET', path, params);
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time prints; undefined stays undefined. */
export function rfc3339Seconds(value: string | Date | undefined | null): string | undefined {
  if (!value) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return undefined;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `/api/v1` or `/apis/<group>/<version>`, then `/namespaces/<ns>` when namespaced, then the resource. */
export function resourcePath(groupVersion: string, resource: string, namespace?: string, name?: string): string {
  const base = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
}
