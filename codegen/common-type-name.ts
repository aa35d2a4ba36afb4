import { basename } from 'node:path';

/** The TypeScript name of a shared schema file: `common/secret-key-selector.yaml` → `SecretKeySelector`. */
export function commonTypeName(file: string): string {
  return basename(file, '.yaml')
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
