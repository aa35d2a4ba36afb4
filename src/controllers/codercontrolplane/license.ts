// spec.licenseSecretRef → the license uploaded to Coder, and the LicenseApplied condition
// (reference §8.2, in its order of evaluation).
import { createHash } from 'node:crypto';
import {
  CoderControlPlaneConditions,
  type CoderControlPlane,
  type CoderControlPlaneStatus,
} from '../../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../../coder/client.ts';
import { isDuplicateLicense, isUnauthorizedOrForbidden, isCoderNotFound } from '../../coder/error-predicates.ts';
import type { ConditionInput } from '../../runtime/conditions.ts';
import { nowTime } from '../../runtime/conditions.ts';
import { secretValue } from '../shared/secret-value.ts';
import type { StepOutcome } from '../shared/step-outcome.ts';
import { eventTarget } from '../shared/event-target.ts';
import type { ControlPlaneContext } from './context.ts';

const { type, reasons } = CoderControlPlaneConditions.LicenseApplied;
const licenseRetryMs = 30_000;
const defaultLicenseKey = 'license';

/** Sets LicenseApplied, and licenseLastApplied and its hash once a license is uploaded. */
export type LicenseOutcome = StepOutcome<CoderControlPlaneStatus>;

const outcome = (status: ConditionInput['status'], reason: string, message: string, requeue = false): LicenseOutcome => ({
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
    status: { licenseLastApplied: nowTime(ctx.now()), licenseLastAppliedHash: hash },
  });

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
    if (isCoderNotFound(err)) return outcome('False', reasons.NotSupported, 'Control plane does not expose the Enterprise licenses API.');
    if (isUnauthorizedOrForbidden(err))
      return outcome('False', reasons.Forbidden, 'Operator token is not authorized to upload the configured license.', true);
    return outcome('False', reasons.Error, 'Failed to upload configured license; retrying.', true);
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
