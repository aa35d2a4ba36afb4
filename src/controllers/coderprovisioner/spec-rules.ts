// What the schema cannot say about a provisioner's spec: the Go original accepted an empty
// controlPlaneRef.name, Coder limits key names to 64 characters, and extraEnv must not repeat a variable
// (checked before any key call: a spec whose Deployment cannot be built must not rotate the key first).
import type { CoderProvisioner } from '../../../generated/types/coderprovisioner.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { invalidSpec, SpecError } from '../shared/spec-check.ts';
import { buildDeployment } from './desired/deployment.ts';
import { keyName, maxKeyNameLength } from './desired/names.ts';
import type { ProvisionerOutcome } from './status.ts';

/** SpecValid False (the steps stop) for the first rule the spec breaks; nothing otherwise. */
export async function checkSpecRules(deps: { events: Pick<EventRecorder, 'record'> }, p: CoderProvisioner): Promise<ProvisionerOutcome> {
  const problem = specProblem(p);
  return problem ? invalidSpec(deps, p, problem.message) : {};
}

function specProblem(p: CoderProvisioner): SpecError | undefined {
  if (!p.spec?.controlPlaneRef?.name?.trim()) {
    return new SpecError(
      'spec.controlPlaneRef.name',
      'is required: name the CoderControlPlane in this namespace whose Coder the daemons serve',
    );
  }
  if (keyName(p).length > maxKeyNameLength) {
    return new SpecError('spec.key.name', `is longer than the ${maxKeyNameLength} characters Coder allows for a provisioner key name`);
  }
  try {
    buildDeployment(p, { coderURL: '', defaultImage: '', keyID: '' });
  } catch (err) {
    if (err instanceof SpecError) return err;
    throw err;
  }
  return undefined;
}
