// bin/own-module-resolution.js resolves the operator's own relative .ts imports without Node's default
// resolution. It must give every module the URL and format Node would, and leave other imports to Node.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const repo = resolve(import.meta.dirname, '../../..');
/** Every mode's entry, and what the controllers load with their first reconcile: each kind's steps, the operator-access bootstrap. */
const entries = [
  'src/app/options.ts',
  'src/app/run-operator.ts',
  'src/app/run-aggregated-apiserver.ts',
  'src/app/run-mcp.ts',
  ...readdirSync(resolve(repo, 'src/controllers'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(resolve(repo, 'src/controllers', d.name, 'reconcile.ts')))
    .map((d) => `src/controllers/${d.name}/reconcile.ts`),
  'src/coder/operator-access/index.ts',
];

interface Resolution {
  specifier: string;
  parent: string;
  url: string;
  format: string | undefined;
}

/**
 * Every resolution importing the entries makes in a fresh process, with or without the hook: what the whole
 * chain answered, and which of them reached Node's own resolution.
 */
async function resolutions(withHook: boolean): Promise<{ answered: Resolution[]; byNode: Resolution[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const recorder = (into) => ({ resolve(specifier, context, next) {
      const r = next(specifier, context);
      into.push({ specifier, parent: context.parentURL, url: r.url, format: r.format });
      return r;
    } });
    // Hooks run last registered first: this one sits just before Node's own resolution.
    const byNode = [];
    registerHooks(recorder(byNode));
    ${withHook ? `await import(${JSON.stringify(`file://${repo}/bin/own-module-resolution.js`)});` : ''}
    const answered = [];
    registerHooks(recorder(answered));
    for (const entry of ${JSON.stringify(entries)}) await import(new URL(entry, ${JSON.stringify(`file://${repo}/`)}).href);
    console.log(JSON.stringify({ answered, byNode }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as { answered: Resolution[]; byNode: Resolution[] };
}

const key = (r: Resolution) => `${r.parent} ${r.specifier} -> ${r.url} (${r.format})`;
const ownRelativeTs = (r: Resolution) =>
  /^\.\.?\//.test(r.specifier) && r.specifier.endsWith('.ts') && r.parent.startsWith(`file://${repo}/src/`);

describe("the operator's own module resolution", () => {
  it("gives every import the URL and format Node's own resolution gives, and answers the own relative .ts imports itself", async () => {
    const [hooked, plain] = await Promise.all([resolutions(true), resolutions(false)]);
    assert.deepEqual(hooked.answered.map(key).sort(), plain.answered.map(key).sort());
    const own = plain.byNode.filter(ownRelativeTs);
    assert.ok(
      own.length > 500,
      `${own.length} own relative imports: the entries load the controllers with their steps, the aggregated and MCP servers`,
    );
    assert.deepEqual(hooked.byNode.filter(ownRelativeTs).map(key), [], 'no own relative .ts import reaches Node');
    assert.ok(
      hooked.byNode.some((r) => r.specifier.startsWith('node:')) && hooked.byNode.some((r) => r.url.includes('/node_modules/')),
      "Node's own modules and packages go through Node's resolution",
    );
  });
});
