// The credential Secret rule (docs/how-to/credential-secrets.md): when a consumer may read, adopt or write a Secret it does not own.
import type { V1Secret } from '@kubernetes/client-node';
import type { CoderAIGatewayKeyConditions } from '../../../generated/types/coderaigatewaykey.ts';
import type { CoderAIProviderConditions } from '../../../generated/types/coderaiprovider.ts';
import type { CoderMCPServerConditions } from '../../../generated/types/codermcpserver.ts';
import type { CoderProvisionerConditions } from '../../../generated/types/coderprovisioner.ts';
import type { CoderWorkspaceProxyConditions } from '../../../generated/types/coderworkspaceproxy.ts';
import { CredentialSecretReadyCondition } from '../../../generated/types/conditions.ts';
import { isControllerOwnedBy } from '../../runtime/ownership.ts';
import { secretValue } from '../../runtime/secret-value.ts';

export const credentialLabel = 'coder.com/credential';
const credentialLabelValue = 'true';
export const credentialDestinationsAnnotation = 'coder.com/credential-destinations';

// The condition is declared once (schemas/common/conditions/credential-secret-ready.yaml); the checks at the end
// of the file prove that each kind declaring it declares the reasons it can be handed.
export const credentialSecretReadyType = CredentialSecretReadyCondition.type;
export const credentialSecretReasons = CredentialSecretReadyCondition.reasons;

/** Why a Secret the consumer does not own may not be used although it exists. */
export type CredentialMarkReason =
  typeof credentialSecretReasons.NotMarkedAsCredential | typeof credentialSecretReasons.DestinationNotListed;
/** Why a Secret's value is not handed over. */
export type CredentialSecretReason =
  typeof credentialSecretReasons.SecretNotFound | CredentialMarkReason | typeof credentialSecretReasons.KeyNotFound;

/** The object that wants the Secret; the Secret is looked up in its namespace. */
export interface CredentialConsumer {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string };
}

export interface CredentialSecretRef {
  name: string;
  key: string;
}

/** One entry of the destinations annotation; name is '*' for every object of the kind. */
export interface CredentialDestination {
  kind: string;
  name: string;
}

export type CredentialConsent = { consented: true } | { consented: false; reason: CredentialMarkReason; message: string };

export type CredentialSecretResult = { ready: true; value: string } | { ready: false; reason: CredentialSecretReason; message: string };

/** The annotation entry that names an object: `<lower-case kind>/<name>`. */
function destinationEntry(kind: string, name: string): string {
  return `${kind.toLowerCase()}/${name}`;
}

/**
 * The entries of a destinations annotation. Entries that are not exactly `<kind>/<name>` (empty, a
 * missing part, or a namespace in front) are ignored: an entry never reaches outside the Secret's namespace.
 */
export function parseCredentialDestinations(annotation: string | undefined): CredentialDestination[] {
  const destinations: CredentialDestination[] = [];
  for (const entry of (annotation ?? '').split(',')) {
    const parts = entry.trim().split('/');
    if (parts.length === 2 && parts[0] && parts[1]) destinations.push({ kind: parts[0], name: parts[1] });
  }
  return destinations;
}

/**
 * Kinds are compared exactly, so `CoderWorkspaceProxy/x` does not count: the documented spelling is the only
 * one, and whoever audits consent by searching annotations for it sees every grant.
 */
function listsDestination(destinations: CredentialDestination[], kind: string, name: string): boolean {
  const lower = kind.toLowerCase();
  return destinations.some((d) => d.kind === lower && (d.name === '*' || d.name === name));
}

/** The label and annotation of a Secret the operator creates for `owner`, to merge into its metadata. */
export function credentialMarks(owner: { kind: string; metadata: { name?: string } }): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { [credentialLabel]: credentialLabelValue },
    annotations: { [credentialDestinationsAnnotation]: destinationEntry(owner.kind, owner.metadata.name ?? '') },
  };
}

/**
 * Whether the consumer may read, adopt or write this existing Secret: yes when the consumer is its controller
 * owner (the operator created it for this object), otherwise only when it carries both marks.
 */
export function credentialConsent(consumer: CredentialConsumer, ref: CredentialSecretRef, secret: V1Secret): CredentialConsent {
  if (isControllerOwnedBy(secret, consumer)) return { consented: true };
  const entry = destinationEntry(consumer.kind, consumer.metadata.name ?? '');
  const subject = `Secret "${consumer.metadata.namespace ?? ''}/${ref.name}" (key "${ref.key}")`;
  if (secret.metadata?.labels?.[credentialLabel] !== credentialLabelValue) {
    return {
      consented: false,
      reason: credentialSecretReasons.NotMarkedAsCredential,
      message:
        `${subject} lacks the label ${credentialLabel}=${credentialLabelValue}, so the operator does not use it. ` +
        `If ${entry} may use it, add that label and list "${entry}" in the annotation ${credentialDestinationsAnnotation}.`,
    };
  }
  const destinations = parseCredentialDestinations(secret.metadata?.annotations?.[credentialDestinationsAnnotation]);
  if (!listsDestination(destinations, consumer.kind, consumer.metadata.name ?? '')) {
    return {
      consented: false,
      reason: credentialSecretReasons.DestinationNotListed,
      message:
        `${subject} is marked as a credential, but its annotation ${credentialDestinationsAnnotation} does not ` +
        `list ${entry}, so the operator does not use it. If ${entry} may use it, add the entry "${entry}" ` +
        `(kind in lower case) or "${destinationEntry(consumer.kind, '*')}" to that annotation.`,
    };
  }
  return { consented: true };
}

/**
 * The value at `ref.key` when the consumer may use the Secret, checked in the order SecretNotFound,
 * NotMarkedAsCredential, DestinationNotListed, KeyNotFound; nothing is decoded before consent. The value is
 * trimmed (a token written with `--from-file` ends in a newline, which breaks an HTTP header), and a value
 * that is empty after trimming counts as KeyNotFound: there is nothing to use either way.
 */
export function resolveCredentialSecret(
  consumer: CredentialConsumer,
  ref: CredentialSecretRef,
  secret: V1Secret | undefined,
): CredentialSecretResult {
  const namespace = consumer.metadata.namespace ?? '';
  const entry = destinationEntry(consumer.kind, consumer.metadata.name ?? '');
  if (!secret) {
    return {
      ready: false,
      reason: credentialSecretReasons.SecretNotFound,
      message:
        `Secret "${namespace}/${ref.name}" (key "${ref.key}") does not exist. Create it with the label ` +
        `${credentialLabel}=${credentialLabelValue} and "${entry}" in the annotation ${credentialDestinationsAnnotation}.`,
    };
  }
  const consent = credentialConsent(consumer, ref, secret);
  if (!consent.consented) return { ready: false, reason: consent.reason, message: consent.message };
  const value = secretValue(secret, ref.key)?.trim() ?? '';
  if (value === '') {
    return {
      ready: false,
      reason: credentialSecretReasons.KeyNotFound,
      message: `Secret "${namespace}/${ref.name}" has no key "${ref.key}", or its value is empty. Set key "${ref.key}" to the credential.`,
    };
  }
  return { ready: true, value };
}

// tsc proves (exported only so that noUnusedLocals keeps it) that every kind declaring CredentialSecretReady uses this type string and declares the reasons
// it can be handed: all of them, except CoderAIGatewayKey, which only writes Secrets and so gets consent reasons.
type ReasonsOf<C> = C extends { CredentialSecretReady: { type: typeof credentialSecretReadyType; reasons: infer R } } ? R[keyof R] : never;
type Declares<Declared, Used extends Declared> = Used;
type Resolving = CredentialSecretReason | typeof credentialSecretReasons.CredentialAccepted;
type Consenting = CredentialMarkReason | typeof credentialSecretReasons.CredentialAccepted;
export type CredentialReasonChecks = [
  Declares<ReasonsOf<typeof CoderProvisionerConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderWorkspaceProxyConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderAIProviderConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderMCPServerConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderAIGatewayKeyConditions>, Consenting>,
];
