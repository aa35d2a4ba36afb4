// What one process of the binary runs (--app).
export const appModes = ['all', 'controller', 'aggregated-apiserver', 'mcp-http', 'mcp-stdio'] as const;
export type AppMode = (typeof appModes)[number];
