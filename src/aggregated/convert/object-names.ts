// The names of the served objects and the Coder names they carry: `<org>.<owner>.<workspace>`,
// `<org>.<template>` and `<org>.<template>.<version>`.
import { badRequest } from '../status.ts';

/** `<org>.<owner>.<workspace>` or `<org>.<template>`, checked as the Go original does. */
export function parseName(kind: 'workspace' | 'template', name: string): string[] {
  const want = kind === 'workspace' ? 3 : 2;
  if (!name) throw new Error(`invalid ${kind} name: name must not be empty`);
  const parts = name.split('.');
  if (parts.length !== want) throw new Error(`invalid ${kind} name "${name}": expected ${want - 1} separators (".")`);
  const empty = parts.findIndex((p) => p === '');
  if (empty >= 0) throw new Error(`invalid ${kind} name "${name}": segment ${empty} must not be empty`);
  return parts;
}

/** `<org>.<template>.<version>`; the version name may itself hold ".". */
export function parseVersionName(name: string): [string, string, string] {
  const parts = name.split('.');
  const problem = !name
    ? 'name must not be empty'
    : parts.length < 3
      ? 'expected at least 2 separators (".")'
      : parts.slice(0, 2).some((p) => !p) || !parts.slice(2).join('.')
        ? 'organization, template and version must not be empty'
        : undefined;
  if (problem) throw badRequest(`invalid template version name "${name}": ${problem}`);
  return [parts[0]!, parts[1]!, parts.slice(2).join('.')];
}
