// The API server's Status from a @kubernetes/client-node error: code, reason, message and causes.
export interface ApiStatus {
  code: number;
  reason?: string;
  message: string;
  causes: { field?: string; message?: string; reason?: string }[];
}

export function apiStatus(err: unknown): ApiStatus {
  const e = err as { code?: number; body?: unknown; message?: string };
  let body: Record<string, unknown> = {};
  if (typeof e.body === 'string') {
    try {
      body = JSON.parse(e.body) as Record<string, unknown>;
    } catch {
      body = { message: e.body };
    }
  } else if (e.body && typeof e.body === 'object') body = e.body as Record<string, unknown>;
  const details = (body.details ?? {}) as { causes?: ApiStatus['causes'] };
  return {
    code: e.code ?? Number(body.code ?? 0),
    reason: body.reason as string | undefined,
    message: String(body.message ?? e.message ?? ''),
    causes: details.causes ?? [],
  };
}
