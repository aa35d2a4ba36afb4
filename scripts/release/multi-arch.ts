// Whether the production dependencies install the same on linux/amd64 and linux/arm64: the image's
// dependency stage runs `npm ci --omit=dev --ignore-scripts` for each platform, so a package that builds
// native code in an install script, ships a prebuilt addon, or is limited to some CPUs or systems would
// give one of the two images a different or a broken tree.

/** A package entry of package-lock.json (lockfileVersion 3). */
export interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  hasInstallScript?: boolean;
  os?: string[];
  cpu?: string[];
}

export const imagePlatforms = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
] as const;

/** npm's os/cpu lists: names allow, "!name" excludes; an empty or missing list allows all. */
function allows(list: string[] | undefined, value: string): boolean {
  if (!list?.length) return true;
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((v) => !v.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value);
}

/** One line per production package that would not install alike on every image platform. */
export function platformProblems(packages: Record<string, LockPackage>): string[] {
  const problems: string[] = [];
  for (const [path, pkg] of Object.entries(packages)) {
    if (path === '' || pkg.dev) continue;
    const name = `${path.replace(/^.*node_modules\//, '')}@${pkg.version ?? '?'}`;
    if (pkg.hasInstallScript) problems.push(`${name} runs an install script (native code is built at install)`);
    for (const platform of imagePlatforms) {
      if (allows(pkg.os, platform.os) && allows(pkg.cpu, platform.cpu)) continue;
      // An optional package limited to some platforms is npm's way to ship one prebuilt binary per platform:
      // skipped where it does not fit, so the tree differs between the images.
      problems.push(
        `${name} does not install on ${platform.os}/${platform.cpu} (os ${JSON.stringify(pkg.os ?? [])}, cpu ${JSON.stringify(pkg.cpu ?? [])})`,
      );
    }
  }
  return problems;
}
