// A YAML file as plain data (a kubeconfig). The parser, some 70 modules, loads with the first file read: an
// operator in a pod authenticates with its ServiceAccount and never reads one.
import { createRequire } from 'node:module';
import { fs } from './builtins.ts';

const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** The file's data, `{}` when it is empty; throws when it cannot be read or parsed. */
export function readYamlFile<T extends object>(path: string): T {
  const text = fs.readFileSync(path, 'utf8');
  return (yaml().parse(text) ?? {}) as T;
}
