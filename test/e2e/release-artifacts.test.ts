// The release files as the release workflow makes them (`node scripts/release/artifacts.ts --out <dir> --tag
// v<version>`): the bundles codegen keeps in dist/, a CycloneDX SBOM that lists exactly the production
// packages package-lock.json installs into the image, and SHA-256 sums that match the files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CycloneDX } from '../../scripts/release/sbom.ts';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const run = (args: string[]) =>
  new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(process.execPath, ['scripts/release/artifacts.ts', ...args], (err, _stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stderr }),
    ),
  );

describe('the release files', () => {
  const out = mkdtempSync(join(tmpdir(), 'coder-k8s-release-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('are the bundles, the SBOM of the image dependencies and their sums', async () => {
    const { code, stderr } = await run(['--out', out, '--tag', `v${version}`]);
    assert.equal(code, 0, stderr);

    for (const bundle of ['install.yaml', 'install-controller.yaml']) {
      assert.equal(readFileSync(join(out, bundle), 'utf8'), readFileSync(join('dist', bundle), 'utf8'));
    }

    const sbom = JSON.parse(readFileSync(join(out, `coder-k8s-v${version}.cdx.json`), 'utf8')) as CycloneDX;
    assert.equal(sbom.bomFormat, 'CycloneDX');
    assert.deepEqual([sbom.metadata.component.name, sbom.metadata.component.version], ['coder-k8s', version]);
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version: string; dev?: boolean }> };
    const production = new Set(
      Object.entries(lock.packages)
        .filter(([path, pkg]) => path !== '' && !pkg.dev)
        .map(([path, pkg]) => `${path.replace(/^.*node_modules\//, '')}@${pkg.version}`),
    );
    const listed = new Set(sbom.components.map((c) => `${c.name}@${c.version}`));
    assert.deepEqual([...listed].sort(), [...production].sort());
    assert.ok(
      [...listed].some((p) => p.startsWith('pg-types@')),
      'a production package a development one also reaches is listed',
    );
    assert.ok(![...listed].some((p) => p.startsWith('typescript@')), 'no development package');

    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n');
    assert.equal(sums.length, 3);
    for (const line of sums) {
      const [sum, file] = line.split('  ');
      assert.equal(
        createHash('sha256')
          .update(readFileSync(join(out, file!)))
          .digest('hex'),
        sum,
        file,
      );
    }
  });

  it('are refused for a tag that is not the package.json version, saying which', async () => {
    const { code, stderr } = await run(['--out', out, '--tag', 'v9.9.9']);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`--tag v9\\.9\\.9 is not the release in package\\.json \\(v${version.replaceAll('.', '\\.')}\\)`));
  });
});
