// Wires a controller to the caches it reacts to: for(kind) enqueues the object itself, owns(kind) the
// object's controller owner of the `for` kind, watches(kind, map) whatever keys `map` returns; each may
// take an EventFilter that drops the events not worth a reconcile (event-filter.ts).
// The events of owned objects go ahead in the queue (ownedObjectPriority).
import type { Cache } from './cache.ts';
import { Controller, requestKey, type ControllerOptions, type Reconciler } from './controller.ts';
import type { EventFilter } from './event-filter.ts';
import type { KubeObject } from './informer.ts';
import type { ResourceKind } from './resource.ts';

type CacheFor = <T extends KubeObject>(resource: ResourceKind) => Cache<T>;

/**
 * The queue priority of an owned object's event. Such a change (a Deployment that now has a ready pod) mostly
 * finishes what a reconcile began; behind a backlog of objects not reconciled yet (a thousand created at once),
 * it would hold every object's Ready until the whole backlog had been worked through once.
 */
const ownedObjectPriority = 1;

export class ControllerBuilder {
  private primary?: ResourceKind;
  private readonly wiring: ((controller: Controller) => void)[] = [];
  private readonly name: string;
  private readonly cacheFor: CacheFor;
  private readonly options: ControllerOptions;
  private readonly register: (c: Controller) => void;

  constructor(name: string, cacheFor: CacheFor, options: ControllerOptions, register: (c: Controller) => void) {
    this.name = name;
    this.cacheFor = cacheFor;
    this.options = options;
    this.register = register;
  }

  for<T extends KubeObject>(resource: ResourceKind, filter?: EventFilter<T>): this {
    this.primary = resource;
    this.wiring.push((controller) =>
      this.cacheFor<T>(resource).addHandlers(
        enqueueEach(controller, (obj) => [requestKey(obj.metadata?.namespace, obj.metadata?.name ?? '')], filter),
      ),
    );
    return this;
  }

  owns<T extends KubeObject>(resource: ResourceKind, filter?: EventFilter<T>): this {
    this.wiring.push((controller) => {
      const owner = this.primary!;
      this.cacheFor<T>(resource).addHandlers(
        enqueueEach(
          controller,
          (obj) => {
            const ref = obj.metadata?.ownerReferences?.find((r) => r.controller);
            if (!ref || ref.kind !== owner.kind || ref.apiVersion.split('/')[0] !== owner.apiVersion.split('/')[0]) return [];
            return [requestKey(obj.metadata?.namespace, ref.name)];
          },
          filter,
          ownedObjectPriority,
        ),
      );
    });
    return this;
  }

  watches<T extends KubeObject>(resource: ResourceKind, map: (obj: T) => string[], filter?: EventFilter<T>): this {
    this.wiring.push((controller) => this.cacheFor<T>(resource).addHandlers(enqueueEach(controller, map, filter)));
    return this;
  }

  build(reconciler: Reconciler): Controller {
    if (!this.primary) throw new Error(`controller ${this.name}: for() is required`);
    const controller = new Controller(this.name, reconciler, this.options);
    for (const wire of this.wiring) wire(controller);
    this.register(controller);
    return controller;
  }
}

function enqueueEach<T extends KubeObject>(
  controller: Controller,
  keysOf: (obj: T) => string[],
  filter: EventFilter<T> = {},
  priority = 0,
) {
  const enqueue = (obj: T) => {
    for (const key of keysOf(obj)) controller.queue.add(key, priority);
  };
  return {
    onAdd: (obj: T) => {
      if (filter.create !== false) enqueue(obj);
    },
    onDelete: enqueue,
    onUpdate: (oldObj: T, newObj: T) => {
      if (filter.update && !filter.update(oldObj, newObj)) return;
      const keys = new Set([...keysOf(oldObj), ...keysOf(newObj)]);
      for (const key of keys) controller.queue.add(key, priority);
    },
  };
}
