// How a proxy reaches Coder to register itself: through spec.controlPlaneRef (the control plane's operator
// token on its in-cluster Service, ControlPlaneReady and OperatorAccessReady), through spec.bootstrap with a
// session token the user marked as a credential for it, or not at all (a proxy registered by hand).
import { coderWorkspaceProxyResource } from '../../../generated/clients/coderworkspaceproxy.ts';
import { CoderWorkspaceProxyConditions as C, type CoderWorkspaceProxy } from '../../../generated/types/coderworkspaceproxy.ts';
import { CoderClient } from '../../coder/client.ts';
import { InvalidCoderTokenError } from '../../coder/errors.ts';
import type { ConditionWith } from '../../runtime/conditions.ts';
import { controlPlaneRetryMs, resolveControlPlane } from '../../controlplane/access.ts';
import { SpecError } from '../shared/spec-check.ts';
import type { ProxyContext } from './context.ts';
import { defaultTokenKey } from './credentials.ts';
import type { ProxyOutcome } from './status.ts';

export type RegistrationMode = 'controlPlane' | 'bootstrap' | 'manual';

export function registrationMode(proxy: CoderWorkspaceProxy): RegistrationMode {
  if (proxy.spec?.controlPlaneRef) return 'controlPlane';
  return proxy.spec?.bootstrap ? 'bootstrap' : 'manual';
}

export interface CoderAccess extends ProxyOutcome {
  /** Set when the proxy may be registered now. */
  client?: CoderClient;
  /** The status.url of the control plane in spec.controlPlaneRef, when it has one. */
  controlPlaneURL?: string;
}

/** A condition of `type`, one of the kind's, with `reason`, one of that type's (the kind's Outcome checks both). */
const condition = <Type extends string, Reason extends string>(
  type: Type,
  ok: boolean,
  reason: Reason,
  message: string,
): ConditionWith<Type, Reason> => ({
  type,
  status: ok ? 'True' : 'False',
  reason,
  message,
});

/** The Coder client registration uses, or the conditions that say why there is none. `bootstrapToken` comes from checkCredentials. */
export function coderAccess(ctx: ProxyContext, proxy: CoderWorkspaceProxy, bootstrapToken: string | undefined): CoderAccess {
  const noControlPlane = { [C.ControlPlaneReady.type]: undefined, [C.OperatorAccessReady.type]: undefined };
  const mode = registrationMode(proxy);
  if (mode === 'manual') return { conditions: noControlPlane };
  if (mode === 'bootstrap') {
    if (bootstrapToken === undefined) return { conditions: noControlPlane };
    const coderURL = proxy.spec!.bootstrap!.coderURL ?? '';
    let client: CoderClient;
    try {
      client = new CoderClient({
        baseURL: coderURL,
        token: bootstrapToken,
        logger: ctx.logger.child({ coderWorkspaceProxy: `${proxy.metadata.namespace}/${proxy.metadata.name}` }),
      });
    } catch (err) {
      if (err instanceof InvalidCoderTokenError) {
        const ref = proxy.spec!.bootstrap!.credentialsSecretRef!;
        throw new SpecError(
          'spec.bootstrap.credentialsSecretRef',
          `Secret "${proxy.metadata.namespace}/${ref.name}" (key "${ref.key || defaultTokenKey}") holds no usable token: ${err.message}.`,
        );
      }
      throw new SpecError('spec.bootstrap.coderURL', (err as Error).message);
    }
    return { conditions: noControlPlane, client };
  }

  const ref = proxy.spec!.controlPlaneRef!;
  const namespace = proxy.metadata.namespace!;
  const cp = ctx.caches.controlPlanes.get(namespace, ref.name);
  const controlPlaneURL = cp?.metadata.deletionTimestamp ? undefined : cp?.status?.url || undefined;
  const access = resolveControlPlane(ctx, ctx.caches, namespace, ref, { ownerFor: coderWorkspaceProxyResource.kind });
  const named = `CoderControlPlane "${namespace}/${ref.name}"`;
  if (access.usable) {
    return {
      conditions: {
        [C.ControlPlaneReady.type]: condition(
          C.ControlPlaneReady.type,
          true,
          C.ControlPlaneReady.reasons.ControlPlaneAvailable,
          `${named} exists and has status.url.`,
        ),
        [C.OperatorAccessReady.type]: condition(
          C.OperatorAccessReady.type,
          true,
          C.OperatorAccessReady.reasons.OperatorAccessReady,
          `The operator token of ${named} was read.`,
        ),
      },
      client: access.client,
      controlPlaneURL,
    };
  }
  if (access.reason === 'ControlPlaneUnavailable') {
    return {
      conditions: {
        [C.ControlPlaneReady.type]: condition(
          C.ControlPlaneReady.type,
          false,
          C.ControlPlaneReady.reasons.ControlPlaneUnavailable,
          access.message,
        ),
        [C.OperatorAccessReady.type]: undefined,
      },
      requeueAfterMs: controlPlaneRetryMs,
    };
  }
  return {
    conditions: {
      [C.ControlPlaneReady.type]: condition(
        C.ControlPlaneReady.type,
        true,
        C.ControlPlaneReady.reasons.ControlPlaneAvailable,
        `${named} exists and has status.url.`,
      ),
      [C.OperatorAccessReady.type]: condition(
        C.OperatorAccessReady.type,
        false,
        C.OperatorAccessReady.reasons.OperatorAccessNotReady,
        `${access.message} The proxy is not registered or changed in Coder until it has; turn operator access on (spec.operatorAccess) on that control plane.`,
      ),
    },
    controlPlaneURL,
    requeueAfterMs: controlPlaneRetryMs,
  };
}
