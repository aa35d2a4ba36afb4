// Errors the user fixes: the binary prints their message (no stack) and exits 1.
/** A command line the binary cannot use. */
export class UsageError extends Error {}
