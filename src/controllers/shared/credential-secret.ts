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
/** `<data key>=<kind>/<name>` entries, comma-separated: which object wrote each value the operator put into a Secret it did not create. */
export const credentialWrittenByAnnotation = 'coder.com/credential-written-by';

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
/** Why a consenting Secret the consumer does not own may not be written. */
export type CredentialWriteReason = CredentialMarkReason | typeof credentialSecretReasons.ValueNotOwned;

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
export type CredentialWriteConsent = { consented: true } | { consented: false; reason: CredentialWriteReason; message: string };

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

/** The written-by entries of a Secret, by data key. */
function writtenBy(secret: V1Secret): Map<string, string> {
  const writers = new Map<string, string>();
  for (const entry of (secret.metadata?.annotations?.[credentialWrittenByAnnotation] ?? '').split(',')) {
    const at = entry.indexOf('=');
    if (at > 0) writers.set(entry.slice(0, at).trim(), entry.slice(at + 1).trim());
  }
  return writers;
}

/**
 * Whether the consumer may write its credential at `ref.key` of this existing Secret: always when it is the
 * controller owner; otherwise the Secret must consent (credentialConsent) and the key must hold nothing, or a
 * value this object wrote: the annotation coder.com/credential-written-by names it for that key, or
 * `recognised` (the kind knows the value as its own, written before the annotation existed). Consent to use a
 * Secret is not consent to replace what a person, or another object, keeps in it.
 */
export function credentialWriteConsent(
  consumer: CredentialConsumer,
  ref: CredentialSecretRef,
  secret: V1Secret,
  recognised = false,
): CredentialWriteConsent {
  const consent = credentialConsent(consumer, ref, secret);
  if (!consent.consented || isControllerOwnedBy(secret, consumer)) return consent;
  const entry = destinationEntry(consumer.kind, consumer.metadata.name ?? '');
  if ((secretValue(secret, ref.key)?.trim() ?? '') === '' || writtenBy(secret).get(ref.key) === entry || recognised) return consent;
  return {
    consented: false,
    reason: credentialSecretReasons.ValueNotOwned,
    message:
      `Secret "${consumer.metadata.namespace ?? ''}/${ref.name}" (key "${ref.key}") holds a value that ${entry} did not write ` +
      `(the annotation ${credentialWrittenByAnnotation} does not name it for that key), so the operator does not overwrite it ` +
      `and creates nothing in Coder for it. Point the field at another Secret, or remove the key from this one if its value may go.`,
  };
}

/** The written-by annotation after `writer` writes `key` of `secret`: to send with the value, in the same write. */
export function credentialWrittenBy(
  writer: { kind: string; metadata: { name?: string } },
  key: string,
  secret: V1Secret,
): Record<string, string> {
  const writers = writtenBy(secret);
  writers.set(key, destinationEntry(writer.kind, writer.metadata.name ?? ''));
  return { [credentialWrittenByAnnotation]: [...writers].map(([k, w]) => `${k}=${w}`).join(',') };
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
type Resolving = CredentialSecretReason | CredentialWriteReason | typeof credentialSecretReasons.CredentialAccepted;
type Consenting = CredentialWriteReason | typeof credentialSecretReasons.CredentialAccepted;
export type CredentialReasonChecks = [
  Declares<ReasonsOf<typeof CoderProvisionerConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderWorkspaceProxyConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderAIProviderConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderMCPServerConditions>, Resolving>,
  Declares<ReasonsOf<typeof CoderAIGatewayKeyConditions>, Consenting>,
];
