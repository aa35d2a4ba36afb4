// A problem found while starting the operator, e.g. a missing CRD: the binary prints the message (no stack) and exits 1.
export class StartupError extends Error {}
