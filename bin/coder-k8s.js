#!/usr/bin/env node
// The coder-k8s command: registers the TypeScript loader, then runs src/main.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
