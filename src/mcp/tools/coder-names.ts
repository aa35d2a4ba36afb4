// The aggregated API's names of Coder objects: `<organization>.<template>` and
// `<organization>.<owner>.<workspace>`; Coder names hold no ".", so the split is exact.

export function parseCoderName(kind: 'workspace' | 'template', name: string): string[] {
  const separators = kind === 'workspace' ? 2 : 1;
  const segments = name.split('.');
  if (segments.length !== separators + 1) {
    const shape = kind === 'workspace' ? '<organization>.<owner>.<workspace>' : '<organization>.<template>';
    throw new Error(`invalid ${kind} name "${name}": expected ${separators} separators (".") as in ${shape}`);
  }
  const empty = segments.findIndex((s) => s === '');
  if (empty >= 0) throw new Error(`invalid ${kind} name "${name}": segment ${empty} must not be empty`);
  return segments;
}
