// Coder versions as build info reports them (v2.34.1, v2.35.0-rc.1, v2.36.0-devel+abc123), compared to
// the version that first serves an API. Development builds report v0.0.0-devel: they are not gated by
// version, the endpoint itself decides.
export interface CoderVersion {
  major: number;
  minor: number;
  patch: number;
}

export function parseCoderVersion(version: string | undefined): CoderVersion | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version?.trim() ?? '');
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/**
 * Whether `version` is `minimum` or newer: true or false when both parse, undefined when the running
 * version does not parse or is a development build (v0.0.0), so only the endpoint can tell.
 */
export function coderVersionAtLeast(version: string | undefined, minimum: string): boolean | undefined {
  const running = parseCoderVersion(version);
  const wanted = parseCoderVersion(minimum);
  if (!wanted) throw new Error(`"${minimum}" is not a Coder version`);
  if (!running || (running.major === 0 && running.minor === 0 && running.patch === 0)) return undefined;
  if (running.major !== wanted.major) return running.major > wanted.major;
  if (running.minor !== wanted.minor) return running.minor > wanted.minor;
  return running.patch >= wanted.patch;
}
