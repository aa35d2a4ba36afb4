// The ordered steps of one CoderAIProvider reconcile, run by the shared skeleton (shared/reconcile/kind.ts):
// the spec check, credentials, control plane, version gate, the providers list (which also proves the API is
// served), then create, adopt or update (sync.ts), and the AI Gateway switch. No license is checked:
// coder/coder v2.36.0 coderd/coderd.go mounts /api/v2/ai/providers (coderd/ai_providers.go, AGPL) behind the
// API-key middleware only, and the providers serve Coder Agents (coderd/x/chatd) as well as AI Gateway.
import { coderAIProviderResource } from '../../../generated/clients/coderaiprovider.ts';
import {
  CoderAIProviderConditions as C,
  type CoderAIProvider,
  type CoderAIProviderConditionChanges,
  type CoderAIProviderStatus,
} from '../../../generated/types/coderaiprovider.ts';
import type { ReconcileContext } from '../../runtime/controller.ts';
import { availableRule, cachedObject, cleanupFinalizer, syncWarnings } from '../shared/coder-object/kind.ts';
import { gatewayEnabled, listServed } from '../shared/coder-object/coder-checks.ts';
import { invalidSpec, openingSteps } from '../shared/coder-object/opening-steps.ts';
import { applied, syncRefused } from '../shared/coder-object/step-outcomes.ts';
import { resolveCredentialInputs } from '../shared/coder-object/credential-inputs.ts';
import type { Kind } from '../shared/reconcile/kind.ts';
import type { Outcomes } from '../shared/reconcile/outcome.ts';
import { blockingSchemaProblem, SpecError } from '../shared/spec-check.ts';
import type { ProviderContext } from './context.ts';
import { baseURL, credentialRefs, desiredProvider } from './desired.ts';
import { finalizeProvider } from './finalize.ts';
import { applyProvider, providerRoutes, providersPath } from './sync.ts';

/** The schema validator (with the CEL runtime it needs) loads with the first CoderAIProvider reconciled, not at start. */
const schemaValidator = () => import('../../../generated/validators/coderaiprovider.ts');

/** A condition type CoderAIProvider no longer declares: operators before this one gated providers on the aibridge entitlement. */
const retiredEntitled = 'Entitled';
const syncAction = 'SyncAIProvider';

/** The conditions CoderAIProvider declares, and the retired one its steps remove. */
type ProviderChanges = CoderAIProviderConditionChanges & { [retiredEntitled]?: undefined };

export const providerKind: Kind<CoderAIProvider, ProviderContext, ProviderChanges> = {
  resource: coderAIProviderResource,
  cached: cachedObject,
  readyRule: availableRule('The provider is in Coder as spec describes; clients reach it at status.routes.'),
  finalizer: cleanupFinalizer,
  finalize: finalizeProvider,
  steps,
  warnings: syncWarnings(syncAction),
};

async function steps(
  ctx: ProviderContext,
  p: CoderAIProvider,
  out: Outcomes<CoderAIProviderStatus, ProviderChanges>,
  { signal }: ReconcileContext,
) {
  if (out.stopsAt(await invalidSpec(ctx, p, await specProblem(p)))) return;
  const namespace = p.metadata.namespace ?? '';
  const credentials = resolveCredentialInputs(p, credentialRefs(p), (name) => ctx.caches.secrets.get(namespace, name));
  out.add({ conditions: { [retiredEntitled]: undefined } });
  const connection = await openingSteps(ctx, p, out, { credentials: credentials.condition, feature: 'aiProviders' }, signal);
  if (!connection || !credentials.ready) return;
  const list = () => connection.client.request('GET', providersPath, { signal });
  const providers = await listServed(connection, providersPath, 'AI providers', list, signal);
  if (out.stopsAt(providers)) return;

  const desired = desiredProvider(p, connection.buildInfo.version);
  if (out.stopsAt(await applyProvider(ctx, connection, p, desired, providers.items, credentials.values, signal))) return;
  out.add(providerRoutes(connection, desired));
  if (desired.unsupported.length) {
    const message = `Applied every field except ${desired.unsupported.join('; ')}. Remove the field, or upgrade Coder where a release has it.`;
    out.add(syncRefused(C.Synced.reasons.FieldUnsupported, message));
    return;
  }
  out.add(applied(`Coder holds the provider "${desired.name}" as spec describes.`));
  const consequence =
    'the provider is stored in Coder, but neither AI Gateway clients nor Coder Agents (which Coder starts only with AI Gateway on) can use it';
  out.add(await gatewayEnabled(ctx, p, connection, consequence, signal));
}

/** A value of the wrong type (an object stored without this schema), or a spec no request can be built from. */
export async function specProblem(p: CoderAIProvider): Promise<string | undefined> {
  const schemaProblem = blockingSchemaProblem('CoderAIProvider', (await schemaValidator()).validateCoderAIProvider(p));
  if (schemaProblem) return schemaProblem;
  try {
    baseURL(p);
  } catch (err) {
    if (err instanceof SpecError) return err.message;
    throw err;
  }
  return undefined;
}
