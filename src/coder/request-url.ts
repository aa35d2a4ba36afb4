// The URL of one Coder API call: the client's base URL, the path with its parameters filled in, the query.

/** The parsed base URL: origin and optional path prefix (a Coder served under /coder, say). */
export interface BaseURL {
  origin: URL;
  prefix: string;
}

export function parseBaseURL(baseURL: string): BaseURL {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new Error('the Coder URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`the Coder URL must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  // The token goes in a header; credentials in the URL would be a second secret to keep out of logs.
  if (url.username !== '' || url.password !== '') throw new Error('the Coder URL must not contain credentials');
  return { origin: new URL(`${url.protocol}//${url.host}`), prefix: url.pathname.replace(/\/+$/, '') };
}

/** Fills {name} placeholders of an OpenAPI path template with URL-encoded parameter values. */
export function expandPath(template: string, params: Record<string, string | number | boolean> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') {
      throw new Error(`Coder API path ${template} needs a value for parameter "${name}"`);
    }
    return encodeURIComponent(String(value));
  });
}

/** The absolute URL of `path` (already expanded) under the base URL, with the query appended. */
export function requestURL(base: BaseURL, path: string, query: Record<string, unknown> = {}): URL {
  if (!path.startsWith('/')) throw new Error(`Coder API path ${path} must start with "/"`);
  // Concatenation, not new URL(path, base): a path such as //other.host/x must not change the host.
  const url = new URL(`${base.origin.protocol}//${base.origin.host}${base.prefix}${path}`);
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) url.searchParams.append(name, String(item));
    }
  }
  return url;
}
