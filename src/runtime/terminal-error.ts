// An error that retrying cannot fix (the user must change something): the controller records it and
// drops the key instead of backing off, as controller-runtime's reconcile.TerminalError does.
export class TerminalError extends Error {
  override name = 'TerminalError';
}
