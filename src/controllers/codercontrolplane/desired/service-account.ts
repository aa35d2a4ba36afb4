// The desired ServiceAccount that the Coder pods run as.
import type { V1ServiceAccount } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { controlPlaneLabels, ownedMetadata, serviceAccountName } from './names.ts';
import { definedEntries } from '../../../runtime/object-names.ts';

/**
 * The ServiceAccount to apply, or undefined when spec.serviceAccount.disableCreate is true (the pods
 * then use an existing ServiceAccount of the same name, and the caller releases any it owned).
 * User labels go over the standard ones; annotations are exactly spec.serviceAccount.annotations.
 */
export function buildServiceAccount(cp: CoderControlPlane): V1ServiceAccount | undefined {
  const spec = cp.spec?.serviceAccount;
  if (spec?.disableCreate === true) return undefined;
  const metadata = ownedMetadata(cp, serviceAccountName(cp));
  metadata.labels = { ...controlPlaneLabels(cp), ...definedEntries(spec?.labels) };
  const annotations = definedEntries(spec?.annotations);
  if (annotations) metadata.annotations = annotations;
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata };
}
