// The ordered steps of one CoderMCPServer reconcile, run by the shared skeleton (shared/reconcile/kind.ts):
// the schema check, credentials, control plane, version gate, the list of configs (which proves the API is
// served, and finds the config), then create, adopt or update (sync.ts).
import { coderMCPServerResource } from '../../../generated/clients/codermcpserver.ts';
import {
  CoderMCPServerConditions as C,
  type CoderMCPServer,
  type CoderMCPServerConditionChanges,
  type CoderMCPServerStatus,
} from '../../../generated/types/codermcpserver.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { availableRule, cachedObject, cleanupFinalizer, syncWarnings } from '../shared/coder-object/kind.ts';
import { invalidSpec, openingSteps } from '../shared/coder-object/opening-steps.ts';
import { applied, syncRefused } from '../shared/coder-object/step-outcomes.ts';
import { resolveCredentialInputs } from '../shared/coder-object/credential-inputs.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { blockingSchemaProblem } from '../shared/spec-check.ts';
import type { MCPServerContext } from './context.ts';
import { credentialRefs, desiredMCPServer } from './desired.ts';
import { finalizeMCPServer } from './finalize.ts';
import { applyConfig, listConfigs } from './sync.ts';

/** The schema validator (with the CEL runtime it needs) loads with the first CoderMCPServer reconciled, not at start. */
const schemaValidator = () => import('../../../generated/validators/codermcpserver.ts');

const syncAction = 'SyncMCPServer';

export const mcpServerKind: Kind<CoderMCPServer, MCPServerContext, CoderMCPServerConditionChanges> = {
  resource: coderMCPServerResource,
  cached: cachedObject,
  readyRule: availableRule('The MCP server is registered in Coder as spec describes.'),
  finalizer: cleanupFinalizer,
  finalize: finalizeMCPServer,
  steps,
  warnings: syncWarnings(syncAction),
};

async function steps(
  ctx: MCPServerContext,
  s: CoderMCPServer,
  out: Outcomes<CoderMCPServerStatus, CoderMCPServerConditionChanges>,
  { signal }: ReconcileContext,
) {
  if (out.stopsAt(await invalidSpec(ctx, s, blockingSchemaProblem('CoderMCPServer', (await schemaValidator()).validateCoderMCPServer(s)))))
    return;
  const namespace = s.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(s, credentialRefs(s), (name) => ctx.caches.secrets.get(namespace, name));
  const connection = await openingSteps(ctx, s, out, { credentials: credentials.condition, feature: 'mcpServerConfigs' }, signal);
  if (!connection || !credentials.ready) return;
  const configs = await listConfigs(connection, signal);
  if (out.stopsAt(configs)) return;

  const desired = desiredMCPServer(s, credentials.values, connection.buildInfo.version);
  if (out.stopsAt(await applyConfig(ctx, connection, s, desired, configs.configs, signal))) return;
  out.add({ status: { slug: desired.fields.slug } });
  if (desired.unsupported.length) {
    out.add(syncRefused(C.Synced.reasons.FieldUnsupported, `Applied every field except ${desired.unsupported.join('; ')}.`));
    return;
  }
  out.add(applied(`Coder holds the MCP server "${desired.fields.slug}" as spec describes.`));
}
