// The Secret names that a kind's naming scheme claims for a Secret the operator creates for one of its
// objects: the default names of a control plane's operator token, a provisioner's key and a proxy's token
// each end in a suffix of their own, also when hashed to fit a length limit. A Secret that another kind
// creates under such a name before that object exists would block it (the operator never takes over a
// Secret it did not create for the object), so a kind that creates Secrets under names its users choose
// refuses these. The schema of such a kind repeats the suffixes as CEL rules; a unit test keeps them equal.
import { operatorTokenSecretSuffix } from '../../controlplane/endpoints.ts';

export const provisionerKeySecretSuffix = '-provisioner-key';
export const proxyTokenSecretSuffix = '-proxy-token';

export interface SecretNameClaim {
  suffix: string;
  /** The kind whose naming scheme claims names with this suffix. */
  kind: string;
  /** What the Secret of that kind is, for messages. */
  secret: string;
}

export const secretNameClaims: readonly SecretNameClaim[] = [
  { suffix: operatorTokenSecretSuffix, kind: 'CoderControlPlane', secret: 'operator token Secret' },
  { suffix: provisionerKeySecretSuffix, kind: 'CoderProvisioner', secret: 'provisioner key Secret' },
  { suffix: proxyTokenSecretSuffix, kind: 'CoderWorkspaceProxy', secret: 'proxy token Secret' },
];

/** The claim of another kind on a Secret name, or undefined when no kind's naming scheme claims it. */
export function secretNameClaim(name: string): SecretNameClaim | undefined {
  return secretNameClaims.find((claim) => name.endsWith(claim.suffix));
}

/** Why `field` may not name the Secret `name` that `claim` covers, and what to do (names only, never a value). */
export function claimedNameProblem(field: string, name: string, claim: SecretNameClaim): string {
  return (
    `${field}: the Secret name "${name}" is claimed by ${claim.kind}: names ending in "${claim.suffix}" are the default ` +
    `names of its ${claim.secret}s, which the operator creates for each ${claim.kind} and never takes over. ` +
    `Choose a name that does not end in "${claim.suffix}".`
  );
}
