// Node's built-in modules that start-up uses, as their CommonJS objects. An ES import of a built-in reads
// every export once, and some exports load code on that first read: node:http's WebSocket, CloseEvent and
// MessageEvent load Node's bundled fetch client (about 30 ms of CPU), node:fs's ReadStream its file streams,
// node:util's diff the assertion differ with the terminal's colours (about 5 ms). The operator uses none of
// them; test/unit/architecture/startup-imports.test.ts checks that none loads. node:fs/promises loads Node's
// readline and file watchers with it, so what start-up reads it reads through node:fs's callbacks.
export const fs = process.getBuiltinModule('node:fs');
export const http = process.getBuiltinModule('node:http');
export const util = process.getBuiltinModule('node:util');
