// The files a release attaches, made the same way in CI (.ci/run) and in the release workflow
// (.github/workflows/release.yml): the CycloneDX SBOM of the image's dependencies, the single-file install
// bundles that codegen keeps in dist/, and their SHA-256 sums. It refuses a tag that is not the
// package.json version, and production dependencies that would not install alike on every image platform.
//
//   node scripts/release/artifacts.ts --out <dir> [--tag v1.2.3]
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { platformProblems, type LockPackage } from './multi-arch.ts';
import { imageSbom } from './sbom.ts';

/** What codegen writes to dist/; a release attaches each. */
export const bundles = ['dist/install.yaml', 'dist/install-controller.yaml'];

export async function releaseArtifacts(repo: string, out: string, tag?: string): Promise<string[]> {
  const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { version: string };
  if (tag !== undefined && tag !== `v${version}`) {
    throw new Error(`--tag ${tag} is not the release in package.json (v${version}): bump "version" there, or tag v${version}`);
  }
  const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const problems = platformProblems(lock.packages);
  if (problems.length)
    throw new Error(`production dependencies that differ between linux/amd64 and linux/arm64:\n  ${problems.join('\n  ')}`);

  await mkdir(out, { recursive: true });
  const written: string[] = [];
  for (const bundle of bundles) {
    const target = join(out, basename(bundle));
    await copyFile(join(repo, bundle), target).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`${bundle}: ${err.code === 'ENOENT' ? 'missing; run npm run codegen' : err.message}`);
    });
    written.push(target);
  }
  const sbom = join(out, `coder-k8s-v${version}.cdx.json`);
  await writeFile(sbom, `${JSON.stringify(await imageSbom(repo), null, 2)}\n`);
  written.push(sbom);

  const sums = await Promise.all(
    written.map(
      async (file) =>
        `${createHash('sha256')
          .update(await readFile(file))
          .digest('hex')}  ${basename(file)}`,
    ),
  );
  const sumsFile = join(out, 'SHA256SUMS');
  await writeFile(sumsFile, `${sums.join('\n')}\n`);
  return [...written, sumsFile];
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, tag: { type: 'string' } } });
  if (!values.out) {
    console.error('usage: node scripts/release/artifacts.ts --out <dir> [--tag vX.Y.Z]');
    process.exit(2);
  }
  try {
    const files = await releaseArtifacts(resolve('.'), resolve(values.out), values.tag);
    for (const file of files) console.log(file);
  } catch (err) {
    console.error(`release artifacts: ${(err as Error).message}`);
    process.exit(1);
  }
}
