// Every manifest under examples/ passes `coder-k8s validate` as the process a user runs: each coder.com
// object is checked (and a broken copy fails), every object of another API group (CloudNativePG, Argo CD,
// the Prometheus Operator, the aggregated API) is skipped cleanly, and the command exits 0.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { tempDir } from '../harness/temp-dir.ts';

const repo = join(import.meta.dirname, '..', '..');

function validate(file: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repo, 'bin', 'coder-k8s.js'), 'validate', '-f', file], { cwd: repo }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

const manifests = readdirSync(join(repo, 'examples'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => join('examples', f));

/** The objects of a file by API group: ours (coder.com) and the others. */
function census(file: string): { ours: number; others: number } {
  const objects = parseAllDocuments(readFileSync(join(repo, file), 'utf8'))
    .map((d) => d.toJS() as { apiVersion?: string } | null)
    .filter((o) => o !== null);
  const ours = objects.filter((o) => o.apiVersion?.startsWith('coder.com/')).length;
  return { ours, others: objects.length - ours };
}

describe('examples/ pass coder-k8s validate', () => {
  it('holds examples, with at least one coder.com object among them', () => {
    assert.ok(manifests.length >= 8, manifests.join(', '));
    assert.ok(manifests.some((f) => census(f).ours > 0));
  });

  for (const file of manifests) {
    it(`${file}: every coder.com object checked without a problem, every other one skipped`, async () => {
      const { ours, others } = census(file);
      const { code, stdout } = await validate(file);
      assert.equal(code, 0, stdout);
      const skipped = others ? `, ${others} object(s) of other API groups skipped` : '';
      assert.equal(stdout.trim().split('\n').at(-1), `${ours} object(s) checked, 0 problem(s)${skipped}`);
    });
  }

  it('fails a copy of the CloudNativePG control plane without its Secret key: the example is checked, not skipped', async () => {
    const broken = join(tempDir('examples'), 'controlplane.yaml');
    writeFileSync(broken, readFileSync(join(repo, 'examples/cloudnativepg/controlplane.yaml'), 'utf8').replace(/\n\s+key: uri/, ''));
    const { code, stdout } = await validate(broken);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /spec\.database\.connectionSecretRef\.key: Required value/);
  });
});
