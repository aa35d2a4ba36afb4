#!/usr/bin/env node
// Loads every module of the operator once, without running it, so that Node's compile cache
// (NODE_COMPILE_CACHE) holds all of them: the image runs this at build time, and the operator it ships
// then starts without loading the TypeScript stripper (bin/coder-k8s.js says why that matters).
import * as nodeModule from 'node:module';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import './require-node.js';

const root = join(import.meta.dirname, '..');
const cache = nodeModule.enableCompileCache?.();
if (!cache || cache.status === nodeModule.constants.compileCacheStatus.FAILED) {
  console.error(`fill-compile-cache: the compile cache is off${cache?.message ? `: ${cache.message}` : ''}`);
  process.exit(1);
}
let loaded = 0;
for (const dir of ['src', 'generated']) {
  for (const file of await readdir(join(root, dir), { recursive: true })) {
    const path = join(root, dir, file);
    if (!path.endsWith('.ts')) continue;
    await import(pathToFileURL(path).href);
    loaded++;
  }
}
nodeModule.flushCompileCache?.();
console.log(`fill-compile-cache: ${loaded} modules in ${cache.directory}`);
