// The fixed names of a template test: its workspace name (from the object's UID), its finalizer and its annotation.
export const cleanupFinalizer = 'coder.com/template-test-cleanup';
export const deletionPolicyAnnotation = 'coder.com/deletion-policy';

/**
 * `ktt-` and the first 28 hex digits of the UID without dashes: 32 characters, Coder's limit, and the same
 * name after every restart, so a create that may have happened is found again instead of made twice.
 */
export function workspaceNameOf(uid: string | undefined): string {
  const hex = (uid ?? '').replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{28}/.test(hex))
    throw new Error(`metadata.uid "${uid ?? ''}" has fewer than 28 hex digits; cannot name the test workspace`);
  return `ktt-${hex.slice(0, 28)}`;
}
