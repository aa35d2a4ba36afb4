// The children of an owner that runs pods, applied only over objects it controls: server-side apply would
// take over a same-named object someone else made (foreign-object.ts), so such an object is left untouched,
// collected, and named in one condition, in the words of the owner's kind ("not controlled by this proxy").
import type { ConditionWith } from '../../../runtime/conditions.ts';
import type { KubeObject } from '../../../runtime/informer.ts';
import { isControllerOwnedBy, type OwnerIdentity } from '../../../runtime/ownership.ts';
import type { ResourceKind } from '../../../runtime/resource.ts';
import type { Writer } from '../../../runtime/writer.ts';
import { applyChild } from './foreign-object.ts';

/** Applies one owner's children, and remembers the same-named objects it left alone. */
export class OwnedChildren {
  /** The objects not applied because the owner does not control them (`Deployment "ns/name"`), as met. */
  readonly foreign: string[] = [];
  private readonly writer: Writer;
  private readonly owner: OwnerIdentity;

  constructor(writer: Writer, owner: OwnerIdentity) {
    this.writer = writer;
    this.owner = owner;
  }

  /** Applies `desired` unless a same-named object exists that the owner does not control; returns the object, or undefined then. */
  async apply<T extends KubeObject>(resource: ResourceKind, desired: T, cached: T | undefined): Promise<T | undefined> {
    const applied = await applyChild(this.writer, resource, desired, cached, (live) => this.controls(live));
    if (!applied.foreign) return applied.object;
    this.foreign.push(applied.description);
    return undefined;
  }

  /** Whether `obj` (as the cache or the API server has it) is controlled by the owner. */
  controls(obj: KubeObject): boolean {
    return isControllerOwnedBy(obj, this.owner);
  }
}

/** `Deployment "ns/a", Role "ns/b" already exist and are not controlled by this proxy` (sorted, so the message is stable). */
export function notControlledMessage(foreign: readonly string[], owner: string): string {
  const one = foreign.length === 1;
  return `${foreign.toSorted().join(', ')} already exist${one ? 's' : ''} and ${one ? 'is' : 'are'} not controlled by ${owner}`;
}

/** The ChildrenOwned declaration a kind makes in its schema. */
export interface ChildrenOwnedDeclaration {
  type: string;
  reasons: { Owned: string; ObjectNotOwned: string };
}

/** ChildrenOwned: True when every child is the owner's, else False ObjectNotOwned naming the others. `owner`: "this proxy". */
export function childrenOwnedCondition<D extends ChildrenOwnedDeclaration>(
  declaration: D,
  foreign: readonly string[],
  owner: string,
): ConditionWith<D['type'], D['reasons']['Owned' | 'ObjectNotOwned']> {
  const { type, reasons } = declaration;
  if (!foreign.length) return { type, status: 'True', reason: reasons.Owned, message: `Every child object is managed by ${owner}.` };
  return {
    type,
    status: 'False',
    reason: reasons.ObjectNotOwned,
    message:
      `${notControlledMessage(foreign, owner)}; ` +
      'the operator leaves them untouched and never deletes them. Delete or rename them to let the operator create its own.',
  };
}
