// Which live object of a kind manages an object in Coder, so that spec.adoptExisting never takes over one that
// another object manages: the adopter's base URL, keys or secrets would replace the other's for every Coder
// user, and the two objects would overwrite each other at each resync. An object manages a Coder id when its
// status records it, or when this process handed it that id (by a create, or by passing this check) before a
// status showing it was written; the check and the claim are one synchronous step, so two reconciles of one
// process cannot both pass it. Coder makes its ids as random UUIDs, so objects of any namespace that record the
// same id manage the same object of the same Coder, through whichever control plane they reach it. When two
// objects record one id (two operator processes, or objects from before this check), the older
// (creationTimestamp, then uid) keeps it.
import { SyncedCondition } from '../../../../generated/types/conditions.ts';
import type { Condition } from '../../../runtime/conditions.ts';
import type { Cache } from '../../../runtime/cache.ts';
import { requestKey } from '../../../runtime/controller.ts';
import type { EventFilter } from '../../../runtime/event-filter.ts';
import type { KubeObject } from '../../../runtime/informer.ts';
import type { CoderObject } from './context.ts';

export interface ClaimingObject extends CoderObject {
  status?: { coderID?: string; conditions?: readonly Condition[]; observedGeneration?: number };
}

// The kinds that adopt (CoderAIProvider, CoderMCPServer) declare Synced and Ready ManagedByAnotherObject; Synced's
// is the shared set's (schemas/common/conditions/synced.yaml), which the gateway key, never adopting, omits.
const Synced = SyncedCondition;
const managedByAnotherObject = Synced.reasons.ManagedByAnotherObject;

const coderIDIndex = 'status-coder-id';

interface Claim {
  namespace: string;
  name: string;
  uid: string;
  /** The object made this id by a create (rather than adopting it). */
  created?: true;
}

const creationTime = (obj: CoderObject): number => {
  const at = (obj.metadata as { creationTimestamp?: string | Date }).creationTimestamp;
  return at === undefined ? Number.POSITIVE_INFINITY : new Date(at).getTime();
};

/** Whether `a` was made before `b`: creationTimestamp, then uid (the API server's times have whole seconds). */
export function madeBefore(a: CoderObject, b: CoderObject): boolean {
  const ta = creationTime(a);
  const tb = creationTime(b);
  if (ta !== tb) return ta < tb;
  return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
}

/** `CoderAIProvider "ns/name"`, for messages. */
export function describeHolder(obj: CoderObject): string {
  return `${obj.kind ?? 'object'} "${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}"`;
}

export class CoderIDClaims<T extends ClaimingObject> {
  private readonly objects: Cache<T>;
  /** Coder id → the object this process handed it to. */
  private readonly byID = new Map<string, Claim>();
  /** A create in flight (Coder name in one Coder) → the object creating it: its id is not known yet. */
  private readonly creating = new Map<string, Claim>();

  constructor(objects: Cache<T>) {
    this.objects = objects;
    objects.addIndex(coderIDIndex, (obj) => (obj.status?.coderID ? [obj.status.coderID] : []));
  }

  /**
   * The live object other than `obj` that keeps it from `coderID` (the oldest, when several), found under
   * `nameKey` too while it creates that object. When `ownID` (what `obj` records) is that id, only an older
   * one does. Without `ownID`, any object that records the id.
   */
  holderOf(obj: T, coderID: string, nameKey?: string, ownID?: string): T | undefined {
    const uid = obj.metadata.uid;
    const others = new Map<string, T>();
    for (const o of this.objects.byIndex(coderIDIndex, coderID)) if (o.metadata.uid !== uid) others.set(o.metadata.uid ?? '', o);
    const claim = this.liveClaim(this.byID, coderID, (o) => !o.status?.coderID || o.status.coderID === coderID);
    if (claim && claim.metadata.uid !== uid) others.set(claim.metadata.uid ?? '', claim);
    const creator = nameKey ? this.liveClaim(this.creating, nameKey, () => true) : undefined;
    if (creator && creator.metadata.uid !== uid) others.set(creator.metadata.uid ?? '', creator);
    const recordsIt = ownID === coderID || claim?.metadata.uid === uid;
    const blockers = [...others.values()].filter((o) => !recordsIt || madeBefore(o, obj));
    return blockers.sort((a, b) => (madeBefore(a, b) ? -1 : 1))[0];
  }

  /** Hands `coderID` to `obj`, or returns the object that keeps it from it (and drops a claim `obj` held on it). */
  claim(obj: T, coderID: string, nameKey: string, ownID: string | undefined): T | undefined {
    const holder = this.holderOf(obj, coderID, nameKey, ownID);
    if (holder) {
      if (this.byID.get(coderID)?.uid === obj.metadata.uid) this.byID.delete(coderID);
      return holder;
    }
    // A claim on what `obj` created stays one.
    if (this.byID.get(coderID)?.uid !== obj.metadata.uid) this.byID.set(coderID, claimOf(obj));
    return undefined;
  }

  /** Before `obj` creates the object `nameKey` names: the live object creating it already, or undefined once `obj` is. */
  startCreate(obj: T, nameKey: string): T | undefined {
    const creator = this.liveClaim(this.creating, nameKey, () => true);
    if (creator && creator.metadata.uid !== obj.metadata.uid) return creator;
    this.creating.set(nameKey, claimOf(obj));
    return undefined;
  }

  /** The create has ended; `coderID` is what Coder made, if it did. */
  endCreate(obj: T, nameKey: string, coderID?: string): void {
    if (this.creating.get(nameKey)?.uid === obj.metadata.uid) this.creating.delete(nameKey);
    if (!coderID) return;
    for (const c of this.byID.values()) if (c.uid === obj.metadata.uid) delete c.created;
    this.byID.set(coderID, { ...claimOf(obj), created: true });
  }

  /**
   * The Coder id `obj` last created in this process and still holds, for when no status shows it: the status
   * write after the create failed (one that succeeded is seen through Writer.current).
   */
  createdBy(obj: T): string | undefined {
    for (const [id, c] of this.byID) if (c.uid === obj.metadata.uid && c.created) return id;
    return undefined;
  }

  /** Forgets every claim of `obj` (it is gone, or gave up the id). */
  release(obj: T): void {
    for (const map of [this.byID, this.creating]) for (const [key, c] of map) if (c.uid === obj.metadata.uid) map.delete(key);
  }

  /**
   * The watch of the kind itself that brings back the objects kept from a Coder id once an object that
   * records one is deleted or stops recording it; they are found by their Synced reason.
   */
  releasedWatch(): { map: (obj: T) => string[]; filter: EventFilter<T> } {
    return {
      map: (released) => {
        if (!released.status?.coderID) return [];
        return this.objects
          .list()
          .filter((o) => o.metadata.uid !== released.metadata.uid && syncedReason(o) === managedByAnotherObject)
          .map((o) => requestKey(o.metadata.namespace, o.metadata.name!));
      },
      filter: { create: false, update: (oldObj, newObj) => !!oldObj.status?.coderID && oldObj.status.coderID !== newObj.status?.coderID },
    };
  }

  private liveClaim(map: Map<string, Claim>, key: string, stillHolds: (obj: T) => boolean): T | undefined {
    const claim = map.get(key);
    if (!claim) return undefined;
    const live = this.objects.get(claim.namespace, claim.name);
    if (live && live.metadata.uid === claim.uid && stillHolds(live)) return live;
    map.delete(key);
    return undefined;
  }
}

function claimOf(obj: CoderObject): Claim {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
}

function syncedReason(obj: ClaimingObject): string | undefined {
  return obj.status?.conditions?.find((c) => c.type === Synced.type)?.reason;
}

/**
 * The key of a name in one Coder, for a create in flight: Coder's deployment id (the same for every control
 * plane on one Coder database), or the control plane when Coder gives none.
 */
export function coderNameKey(deploymentID: string | undefined, controlPlane: KubeObject, name: string): string {
  return `${deploymentID || `${controlPlane.metadata?.namespace}/${controlPlane.metadata?.name}`}\u0000${name}`;
}
