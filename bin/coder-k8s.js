#!/usr/bin/env node
// The coder-k8s command: checks the Node.js floor, then runs src/main.ts's command (Node strips the types itself).
import * as nodeModule from 'node:module';
import './require-node.js';
import './own-module-resolution.js';

// Node strips each .ts file's types with a WebAssembly compiler that, once loaded, stays resident (about
// 17 MiB). The compile cache (NODE_COMPILE_CACHE, else a folder in the system's temp folder) keeps the
// stripped output, so an operator whose files are all in it (the image fills it at build time,
// bin/fill-compile-cache.js) never loads that compiler. Where the folder is not writable this does nothing.
nodeModule.enableCompileCache?.();

const { runCommand } = await import('../src/main.ts');
void runCommand(process.argv.slice(2));
