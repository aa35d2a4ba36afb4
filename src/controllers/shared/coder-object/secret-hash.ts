// The fingerprint of a write-only secret value that Coder never returns: kept in status to notice a changed
// value, so the value is resent only when it changes. Salted with the object's UID, so equal values of two
// objects give different hashes and a hash in status reveals nothing that another object's status could confirm.
import { createHash } from 'node:crypto';

export function secretHash(uid: string | undefined, value: string): string {
  return `sha256:${createHash('sha256')
    .update(uid ?? '')
    .update('\0')
    .update(value)
    .digest('hex')}`;
}
