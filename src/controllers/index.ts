// Every controller the binary runs, each registered through its setup(manager, deps).
import { setup as coderAIGatewayKey } from './coderaigatewaykey/controller.ts';
import { setup as coderAIProvider } from './coderaiprovider/controller.ts';
import { setup as coderControlPlane } from './codercontrolplane/controller.ts';
import { setup as coderProvisioner } from './coderprovisioner/controller.ts';
import { setup as coderMCPServer } from './codermcpserver/controller.ts';
import { setup as coderTemplateTest } from './codertemplatetest/controller.ts';
import { setup as coderWorkspaceProxy } from './coderworkspaceproxy/controller.ts';
import type { ControllerSetup } from './shared/deps.ts';

export const controllerSetups: readonly ControllerSetup[] = [
  coderControlPlane,
  coderTemplateTest,
  coderAIProvider,
  coderMCPServer,
  coderAIGatewayKey,
  coderWorkspaceProxy,
  coderProvisioner,
];
