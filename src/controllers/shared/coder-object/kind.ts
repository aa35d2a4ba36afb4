// What every kind that keeps an object in a control plane's Coder has in common as a Kind of the reconcile
// skeleton (shared/reconcile/kind.ts): its object read from its own cache, the finalizer it always carries
// (what it made in Coder goes when it is deleted), and Ready: Available once every step went through, else
// the reason and message of the step that stopped, with Stalled True while only the user can move it on.
import { CoderObjectReadyCondition as Ready } from '../../../../generated/types/conditions.ts';
import type { Request } from '../../../runtime/controller.ts';
import type { ReadyRule } from '../reconcile/readiness.ts';
import type { CoderObject, CoderObjectContext } from './context.ts';
import { coderObjectFinalizer } from '../finalizers.ts';

const R = Ready.reasons;

/** The object of `request` in the kind's cache. */
export function cachedObject<T extends CoderObject>(ctx: CoderObjectContext<T>, request: Request): T | undefined {
  return ctx.caches.objects.get(request.namespace, request.name);
}

/** The finalizer goes on before anything is made in Coder, and stays until deletion. */
export function cleanupFinalizer(): { name: string; needed: boolean } {
  return { name: coderObjectFinalizer, needed: true };
}

/**
 * Ready True Available with `availableMessage` once no step stopped. Every problem of these kinds stops the
 * steps with its own reason, which also says whether only the user can act (Stalled): no condition needs
 * to be read for it, so the rule has no requirements, and `userMustAct` is there only so the kind keeps Stalled.
 */
export function availableRule(availableMessage: string): ReadyRule<never, typeof R.Available> {
  return { requirements: [], readyReason: R.Available, readyMessage: availableMessage, userMustAct: () => false };
}

/**
 * The conditions whose turn to False is a Warning Event, all with the kind's one Event action (for example
 * SyncAIProvider): the control plane, the credential Secrets, Coder's support of the API, and the sync itself.
 */
export function syncWarnings(action: string) {
  return { ControlPlaneReady: action, CredentialSecretReady: action, Supported: action, Synced: action } as const;
}
