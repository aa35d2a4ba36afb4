// Valid objects of each kind to start test cases from; each call returns a fresh copy.
export type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown> };

function object(kind: string, name: string, spec: Record<string, unknown>): Obj {
  return { apiVersion: 'coder.com/v1alpha1', kind, metadata: { name, namespace: 'coder' }, spec };
}

const ref = { controlPlaneRef: { name: 'coder' } };

export const aGatewayKey = (spec: Record<string, unknown> = {}, name = 'gateway'): Obj =>
  object('CoderAIGatewayKey', name, { ...ref, destinations: [{ name: 'gateway-key' }], ...spec });

export const aProvider = (spec: Record<string, unknown> = {}, name = 'anthropic'): Obj =>
  object('CoderAIProvider', name, { ...ref, type: 'anthropic', ...spec });

export const aControlPlane = (spec: Record<string, unknown> = {}, name = 'coder'): Obj => object('CoderControlPlane', name, spec);

export const anMcpServer = (spec: Record<string, unknown> = {}, name = 'github'): Obj =>
  object('CoderMCPServer', name, { ...ref, displayName: 'GitHub', url: 'https://api.githubcopilot.com/mcp/', ...spec });

export const aProvisioner = (spec: Record<string, unknown> = {}, name = 'provisioner'): Obj =>
  object('CoderProvisioner', name, { ...ref, ...spec });

export const aTemplateTest = (spec: Record<string, unknown> = {}, name = 'docker-active'): Obj =>
  object('CoderTemplateTest', name, { ...ref, template: 'coder.docker', version: { active: true }, ...spec });

export const aWorkspaceProxy = (spec: Record<string, unknown> = {}, name = 'eu-west'): Obj => object('CoderWorkspaceProxy', name, spec);

export const database = (name: string, key?: string) => ({ connectionSecretRef: { name, ...(key !== undefined ? { key } : {}) } });
