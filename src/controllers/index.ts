// Every controller the binary runs, each registered through its setup(manager, deps).
import { setup as coderControlPlane } from './codercontrolplane/controller.ts';
import { setup as coderProvisioner } from './coderprovisioner/controller.ts';
import type { ControllerSetup } from './shared/deps.ts';

export const controllerSetups: readonly ControllerSetup[] = [coderControlPlane, coderProvisioner];
