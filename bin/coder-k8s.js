#!/usr/bin/env node
// The coder-k8s command: checks the Node.js floor, then runs src/main.ts (Node strips the types itself).
import './require-node.js';

await import('../src/main.ts');
