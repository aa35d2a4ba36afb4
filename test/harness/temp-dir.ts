// A directory under the system's temp dir, removed when the test (or suite, or file) that made it ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `coder-k8s-${prefix}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
