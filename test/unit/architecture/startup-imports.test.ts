// What `--app=controller` loads before its first reconcile: not the aggregated API server, the MCP server,
// any kind's reconcile steps (each loads with the first object of its kind), the operator-access bootstrap
// that writes Coder's database, the schema validators with their CEL runtime, the YAML parser, the websocket
// library, OpenTelemetry's API (prom-client's index loads it; runtime/prom-client.ts does not), Node's
// bundled fetch client, its file streams or its assertion differ (an ES import of node:http, node:fs or
// node:util loads them; runtime/builtins.ts does not), or node:fs/promises (it loads readline). Each of those
// loads where it is used, so a static import that pulls one into start-up fails here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const repo = resolve(import.meta.dirname, '../../..');

/** Every module URL that importing `entries` (relative to the repository) resolves, and Node's own modules that
 * loaded meanwhile, in a fresh process. */
async function modulesLoadedBy(entries: string[]): Promise<{ urls: string[]; builtins: string[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    const before = new Set(process.moduleLoadList);
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
    for (const url of ${JSON.stringify(entries.map((entry) => new URL(entry, `file://${repo}/`).href))}) await import(url);
    console.log(JSON.stringify({ urls: [...seen], builtins: process.moduleLoadList.filter((m) => !before.has(m)) }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: repo });
  return JSON.parse(stdout) as { urls: string[]; builtins: string[] };
}

describe('start-up of the controllers', () => {
  it('loads none of what only another mode or the first reconcile needs', async () => {
    const { urls: loaded, builtins } = await modulesLoadedBy(['src/app/options.ts', 'src/app/run-operator.ts']);
    assert.ok(
      loaded.some((url) => url.includes('/src/controllers/codercontrolplane/')),
      'the controllers themselves are loaded',
    );
    const deferred = [
      /\/src\/aggregated\//,
      /\/src\/mcp\//,
      /\/src\/controllers\/[^/]+\/reconcile\.ts$/,
      /\/src\/coder\/operator-access\/index\.ts$/,
      /\/generated\/validators\//,
      /\/src\/validation\/(cel-|re2|validate)/,
      /\/node_modules\/(yaml|ws|@bufbuild|@opentelemetry)\//,
    ];
    assert.deepEqual(
      loaded.filter((url) => deferred.some((pattern) => pattern.test(url))),
      [],
    );
    assert.ok(builtins.includes('NativeModule https'), 'the Kubernetes client is loaded');
    assert.deepEqual(
      builtins.filter((m) => /undici|internal\/fs\/streams|internal\/fs\/promises|internal\/util\/diff/.test(m)),
      [],
    );
  });
});
