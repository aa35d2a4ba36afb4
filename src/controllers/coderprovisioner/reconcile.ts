// The ordered steps of one CoderProvisioner reconcile (the Go original's order, with the credential Secret rule), run
// by the shared skeleton (shared/reconcile/kind.ts).
import type { V1Deployment } from '@kubernetes/client-node';
import { coderProvisionerResource } from '../../../generated/clients/coderprovisioner.ts';
import {
  CoderProvisionerConditions as C,
  type CoderProvisioner,
  type CoderProvisionerConditionChanges,
  type CoderProvisionerStatus,
} from '../../../generated/types/coderprovisioner.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { refusedSpec } from '../shared/child-refused.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { checkSchema, specValidCondition } from '../shared/spec-check.ts';
import { applyKeySecretAndChildren, ownedDeployment } from './children.ts';
import type { ProvisionerContext } from './context.ts';
import { resolveProvisionerControlPlane } from './control-plane.ts';
import { credentialSecretsStep } from './credential-secrets.ts';
import { checkEntitlement } from './entitlement.ts';
import { finalizeProvisioner } from './finalize.ts';
import { provisionerKeyStep } from './key-step.ts';
import { provisionerReadyRule } from './readiness.ts';
import { checkSpecRules } from './spec-rules.ts';
import { provisionerWorkload } from './status.ts';
import { keyCleanupFinalizer } from '../shared/finalizers.ts';

/** The schema validator (with the CEL runtime it needs) loads with the first CoderProvisioner reconciled, not at start. */
const schemaValidator = () => import('../../../generated/validators/coderprovisioner.ts');

type Out = Outcomes<CoderProvisionerStatus, CoderProvisionerConditionChanges>;

export const provisionerKind: Kind<CoderProvisioner, ProvisionerContext, CoderProvisionerConditionChanges> = {
  resource: coderProvisionerResource,
  cached: (ctx, request) => ctx.caches.provisioners.get(request.namespace, request.name),
  readyRule: provisionerReadyRule,
  finalize: finalizeProvisioner,
  // The key this provisioner made goes from Coder before the object does.
  finalizer: () => ({ name: keyCleanupFinalizer, needed: true }),
  steps,
  stepFailure: (ctx, p, err) => refusedSpec(ctx, coderProvisionerResource, p, err),
  warnings: {
    [C.ControlPlaneReady.type]: 'ResolveControlPlane',
    [C.OperatorAccessReady.type]: 'ResolveControlPlane',
    [C.ExternalProvisionersEntitled.type]: 'CheckEntitlement',
    [C.CredentialSecretReady.type]: 'CheckCredentialSecrets',
    [C.ProvisionerKeyReady.type]: 'EnsureProvisionerKey',
  },
};

async function steps(ctx: ProvisionerContext, p: CoderProvisioner, out: Out, rc: ReconcileContext): Promise<void> {
  const schema = await checkSchema(ctx, p, 'CoderProvisioner', (await schemaValidator()).validateCoderProvisioner(p));
  if (out.stopsAt(schema)) return;
  if (out.stopsAt(await checkSpecRules(ctx, p))) return;
  const message = 'The provisioner key and every child object could be built from the spec.';
  out.add({ conditions: { [C.SpecValid.type]: await specValidCondition(ctx, p, message, schema.tolerated) } });
  const deployment = await provision(ctx, p, out, rc);
  out.underlay(provisionerWorkload(deployment ?? ownedDeployment(ctx, p)));
}

/** From the control plane to the pods, until a step stops; the Deployment the children step left, if it ran. */
async function provision(ctx: ProvisionerContext, p: CoderProvisioner, out: Out, rc: ReconcileContext): Promise<V1Deployment | undefined> {
  const controlPlane = resolveProvisionerControlPlane(ctx, p);
  if (out.stopsAt(controlPlane)) return undefined;
  const { controlPlane: cp, client } = controlPlane;
  if (out.stopsAt(await checkEntitlement(cp, client, rc.signal))) return undefined;
  // The credential rule comes before any key call: a key that may not be stored is not created.
  const credentials = await credentialSecretsStep(ctx, p);
  if (out.stopsAt(credentials)) return undefined;
  const secretKey = credentials.keySecret.kind === 'usable' ? credentials.keySecret.key : '';
  const key = await provisionerKeyStep(ctx, p, cp, client, secretKey, rc);
  if (out.stopsAt(key)) return undefined;
  const children = await applyKeySecretAndChildren(ctx, p, cp, key, credentials);
  out.add(children);
  return children.deployment;
}
