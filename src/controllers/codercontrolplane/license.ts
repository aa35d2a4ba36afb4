// spec.licenseSecretRef → the license uploaded to Coder, and the LicenseApplied condition.
import { createHash } from 'node:crypto';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isCoderNotFound, isDuplicateLicense, isRouteNotServed, isUnauthorizedOrForbidden } from '../../coder/error-predicates.ts';
import { CoderApiError } from '../../coder/errors.ts';
import { findCondition, nowTime, type ConditionOf } from '../../runtime/conditions.ts';
import { censor, scrubSecrets } from '../../runtime/redaction.ts';
import { secretValue } from '../../runtime/secret-value.ts';
import { eventTarget, warnOnNewProblem } from '../shared/event-target.ts';
import type { ControlPlaneContext } from './context.ts';
import type { ControlPlaneOutcome } from './status.ts';

const LicenseApplied = CoderControlPlaneConditions.LicenseApplied;
const { type, reasons } = LicenseApplied;
const licenseRetryMs = 30_000;
const defaultLicenseKey = 'license';
/** How much of Coder's message and detail a condition carries. */
const maxAnswerChars = 300;

/** Sets LicenseApplied, and licenseLastApplied and its hash once a license is uploaded. */
export type LicenseOutcome = ControlPlaneOutcome;

type LicenseCondition = ConditionOf<typeof LicenseApplied>;

const outcome = (
  status: LicenseCondition['status'],
  reason: LicenseCondition['reason'],
  message: string,
  requeue = false,
): LicenseOutcome => ({
  conditions: { [type]: { type, status, reason, message } },
  ...(requeue ? { requeueAfterMs: licenseRetryMs } : {}),
});

export async function reconcileLicense(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  ready: boolean,
  client: CoderClient | undefined,
  signal?: AbortSignal,
): Promise<LicenseOutcome> {
  const ref = cp.spec?.licenseSecretRef;
  if (!ref) return outcome('Unknown', reasons.Pending, 'License Secret reference is not configured.');
  if (!ready) return outcome('False', reasons.Pending, 'Waiting for control plane readiness before applying license.');
  if (!client) return outcome('False', reasons.Pending, 'Waiting for operator access credentials before applying license.');
  const secret = ctx.caches.secrets.get(cp.metadata.namespace, ref.name);
  const value = secretValue(secret, ref.key || defaultLicenseKey);
  if (!value) return outcome('False', reasons.SecretMissing, 'License Secret is missing or incomplete; retrying upload.', true);
  const jwt = value.trim();
  if (!jwt) return outcome('False', reasons.SecretMissing, 'License Secret value is empty after trimming whitespace.', true);
  const hash = createHash('sha256').update(jwt).digest('hex');
  const applied = (message: string): LicenseOutcome => ({
    ...outcome('True', reasons.Applied, message),
    status: { licenseLastApplied: nowTime(ctx.now()), licenseLastAppliedHash: hash, licenseRejectedHash: undefined },
  });

  const refused = refusedBefore(cp, hash);
  if (refused) return { conditions: { [type]: refused } };

  if (cp.status?.licenseLastApplied && cp.status.licenseLastAppliedHash === hash) {
    try {
      const licenses = await client.listLicenses({ signal });
      if (licenses.length > 0) return outcome('True', reasons.Applied, 'Configured license is already applied.');
    } catch (err) {
      if (isCoderNotFound(err)) return outcome('False', reasons.NotSupported, 'Control plane does not expose the Enterprise licenses API.');
      if (isUnauthorizedOrForbidden(err))
        return outcome('False', reasons.Forbidden, 'Operator token is not authorized to query configured licenses.', true);
      return outcome('False', reasons.Error, 'Failed to query existing licenses; retrying.', true);
    }
  }
  try {
    await client.uploadLicense(jwt, { signal });
  } catch (err) {
    if (isDuplicateLicense(err)) return applied('Configured license already exists in coderd.');
    if (isCoderNotFound(err) || isRouteNotServed(err))
      return outcome('False', reasons.NotSupported, 'Control plane does not expose the Enterprise licenses API.');
    if (isLicenseRefusal(err)) return rejected(ctx, cp, ref.name, jwt, hash, err);
    if (isUnauthorizedOrForbidden(err))
      return outcome('False', reasons.Forbidden, 'Operator token is not authorized to upload the configured license.', true);
    const answer = withoutLicense(err instanceof Error ? err.message : String(err), jwt);
    if (!signal?.aborted)
      ctx.logger.warn(
        { controlPlane: `${cp.metadata.namespace}/${cp.metadata.name}`, err: answer },
        'uploading the configured license failed',
      );
    return outcome('False', reasons.Error, `Failed to upload configured license: ${answer}; retrying in 30 s.`, true);
  }
  await ctx.events.record(
    eventTarget(cp),
    'Normal',
    'LicenseApplied',
    'ApplyLicense',
    `Uploaded the license from Secret "${ref.name}" to Coder.`,
  );
  return applied('Configured license uploaded successfully.');
}

/**
 * A 4xx that says the license itself is wrong (Coder answers 400 "Invalid license" when the JWT does not
 * verify, and 400 for a license locked to other deployments: coder/coder v2.26.1 enterprise/coderd/licenses.go
 * postLicense). Not the token (401, 403), not the route (404, 405), not a wait (408, 429).
 */
function isLicenseRefusal(err: unknown): err is CoderApiError {
  return err instanceof CoderApiError && err.status >= 400 && err.status < 500 && ![401, 403, 404, 405, 408, 429].includes(err.status);
}

/** Text of Coder's answer for a condition or log line: bounded, without the JWT or anything else secret. */
function withoutLicense(text: string, jwt: string): string {
  return scrubSecrets(text.split(jwt).join(censor)).slice(0, maxAnswerChars);
}

/** The condition of a license Coder refused, while the Secret's value and the spec are what they were then. */
function refusedBefore(cp: CoderControlPlane, hash: string): LicenseCondition | undefined {
  if (cp.status?.licenseRejectedHash !== hash) return undefined;
  const previous = findCondition(cp.status.conditions, type);
  if (previous?.reason !== reasons.Rejected || previous.observedGeneration !== cp.metadata.generation) return undefined;
  return { type, status: previous.status, reason: previous.reason, message: previous.message };
}

/** Coder's answer, never the JWT, in the condition, an Event and the log; not uploaded again until its input changes. */
async function rejected(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  secretName: string,
  jwt: string,
  hash: string,
  err: CoderApiError,
): Promise<LicenseOutcome> {
  const answer = withoutLicense([err.coderMessage, err.detail].filter(Boolean).join(': '), jwt);
  const message =
    `Coder refused the license in Secret "${secretName}" with HTTP ${err.status}: ${answer || 'no message'}. ` +
    "Put a license Coder accepts in the Secret; the operator uploads again only when the Secret's value or the spec changes.";
  ctx.logger.warn(
    { controlPlane: `${cp.metadata.namespace}/${cp.metadata.name}`, secretName, status: err.status, answer },
    'Coder refused the configured license; it is not uploaded again until the license Secret or the spec changes',
  );
  const condition: LicenseCondition = { type, status: 'False', reason: reasons.Rejected, message };
  await warnOnNewProblem(ctx.events, cp, condition, 'ApplyLicense');
  return { conditions: { [type]: condition }, status: { licenseRejectedHash: hash } };
}
