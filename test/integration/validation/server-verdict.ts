// What the API server says about an object: the errors of a dry-run create or update with
// fieldValidation=Strict, in the validators' form (path and cause message), for comparison.
import type { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';

export interface Finding {
  path: string;
  /** The StatusCause reason, or BadRequest when the request failed to decode (no causes). */
  reason: string;
  message: string;
}

export interface Verdict {
  code: number;
  findings: Finding[];
  /** The object the API server returned when it accepted it (defaults applied). */
  accepted?: Record<string, unknown>;
}

interface Status {
  message?: string;
  details?: { causes?: { field?: string; reason?: string; message?: string }[] };
}

export async function request(kc: KubeConfig, method: string, path: string, body?: unknown): Promise<{ code: number; body: unknown }> {
  const url = new URL(`${kc.getCurrentCluster()!.server}${path}`);
  const options: https.RequestOptions = { method, headers: { 'content-type': 'application/json', accept: 'application/json' } };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = https.request(url, options, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        data += chunk;
      });
      res.on('end', () => {
        try {
          resolve({ code: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined });
        } catch (err) {
          reject(new Error(`${method} ${path}: ${res.statusCode} with a body that is not JSON: ${data.slice(0, 200)}`, { cause: err }));
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Findings of a Status: its causes, or what a decoding error (unknown fields, ObjectMeta types) names. */
export function findingsOf(status: Status): Finding[] {
  const causes = status.details?.causes ?? [];
  if (causes.length) return causes.map((c) => ({ path: c.field ?? '', reason: c.reason ?? '', message: c.message ?? '' }));
  const strict = /strict decoding error: (.*)$/.exec(status.message ?? '');
  if (strict) {
    return [...strict[1]!.matchAll(/unknown field "([^"]*)"/g)].map((m) => ({
      path: m[1]!,
      reason: 'BadRequest',
      message: `unknown field "${m[1]}"`,
    }));
  }
  const decoding = /cannot be handled as a \w+: (json: cannot unmarshal \w+ into Go struct field ObjectMeta\.(\w+) .*)$/.exec(
    status.message ?? '',
  );
  if (decoding) return [{ path: `metadata.${decoding[2]}`, reason: 'BadRequest', message: decoding[1]! }];
  return [{ path: '', reason: 'BadRequest', message: status.message ?? '' }];
}

/** Sends `object` as a dry-run create (POST) or, with `update`, a dry-run replace (PUT). */
export async function serverVerdict(kc: KubeConfig, collection: string, object: Record<string, unknown>, update = false): Promise<Verdict> {
  const name = (object.metadata as { name?: string } | undefined)?.name;
  const path = update ? `${collection}/${name}` : collection;
  const res = await request(kc, update ? 'PUT' : 'POST', `${path}?fieldValidation=Strict&dryRun=All`, object);
  if (res.code >= 200 && res.code < 300) return { code: res.code, findings: [], accepted: res.body as Record<string, unknown> };
  return { code: res.code, findings: findingsOf(res.body as Status) };
}
