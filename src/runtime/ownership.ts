// Whether an object is controlled by a given owner: its controller owner reference names the owner's
// API group, kind, name and UID. A reference with the right name but another UID is a previous owner.
export interface OwnerIdentity {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; uid?: string };
}

interface Owned {
  metadata?: { ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[] };
}

const group = (apiVersion: string | undefined) => (apiVersion ?? '').split('/').slice(0, -1).join('/');

export function isControllerOwnedBy(obj: Owned, owner: OwnerIdentity): boolean {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return (
    ref !== undefined &&
    group(ref.apiVersion) === group(owner.apiVersion) &&
    ref.kind === owner.kind &&
    ref.name === owner.metadata.name &&
    ref.uid === owner.metadata.uid
  );
}
