// What one process of the binary runs (--app).
export const appModes = ['all', 'controller', 'aggregated-apiserver', 'mcp-http'] as const;
export type AppMode = (typeof appModes)[number];
