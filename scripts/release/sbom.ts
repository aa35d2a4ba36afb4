// The CycloneDX SBOM of what the image holds: the production dependency tree that the Dockerfile's
// `npm ci --omit=dev --ignore-scripts` installs, made by `npm sbom` in a copy of that tree. `npm sbom
// --omit dev` on the development checkout leaves out production packages that a development dependency
// also reaches (npm 11 drops pg-types, reached by @types/pg too), so the tree is installed on its own, and
// its package.json loses devDependencies so that npm does not report them missing.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CycloneDX {
  bomFormat: 'CycloneDX';
  specVersion: string;
  metadata: { component: { name: string; version: string; purl?: string } };
  components: { name: string; version: string; purl: string }[];
}

interface PackageJson {
  name: string;
  version: string;
  devDependencies?: Record<string, string>;
}

export async function imageSbom(repo: string): Promise<CycloneDX> {
  const dir = await mkdtemp(join(tmpdir(), 'coder-k8s-sbom-'));
  try {
    await copyFile(join(repo, 'package-lock.json'), join(dir, 'package-lock.json'));
    const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as PackageJson;
    await writeFile(join(dir, 'package.json'), JSON.stringify(pkg));
    // --prefer-offline: npm ci of the checkout filled npm's cache moments before.
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
    delete pkg.devDependencies;
    await writeFile(join(dir, 'package.json'), JSON.stringify(pkg));
    const { stdout } = await run('npm', ['sbom', '--sbom-format', 'cyclonedx'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    const sbom = JSON.parse(stdout) as CycloneDX;
    // npm names the root after its folder; the image is this package.
    sbom.metadata.component.name = pkg.name;
    return sbom;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
