// Where codegen reads from and writes to, relative to the repository root.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const schemasDir = join(repoRoot, 'schemas');
export const kubernetesDefinitionsFile = join(schemasDir, 'kubernetes', 'definitions.yaml');
export const coderApiFile = join(schemasDir, 'coder-api', 'openapi.yaml');
