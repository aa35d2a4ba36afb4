// Wires a controller to the caches it reacts to: for(kind) enqueues the object itself, owns(kind) the
// object's controller owner of the `for` kind, watches(kind, map) whatever keys `map` returns.
import type { Cache } from './cache.ts';
import { Controller, requestKey, type ControllerOptions, type Reconciler } from './controller.ts';
import type { KubeObject } from './informer.ts';
import type { ResourceKind } from './resource.ts';

type CacheFor = <T extends KubeObject>(resource: ResourceKind) => Cache<T>;

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

  for(resource: ResourceKind): this {
    this.primary = resource;
    this.wiring.push((controller) =>
      this.cacheFor(resource).addHandlers(
        enqueueEach(controller, (obj) => [requestKey(obj.metadata?.namespace, obj.metadata?.name ?? '')]),
      ),
    );
    return this;
  }

  owns(resource: ResourceKind): this {
    this.wiring.push((controller) => {
      const owner = this.primary!;
      this.cacheFor(resource).addHandlers(
        enqueueEach(controller, (obj) => {
          const ref = obj.metadata?.ownerReferences?.find((r) => r.controller);
          if (!ref || ref.kind !== owner.kind || ref.apiVersion.split('/')[0] !== owner.apiVersion.split('/')[0]) return [];
          return [requestKey(obj.metadata?.namespace, ref.name)];
        }),
      );
    });
    return this;
  }

  watches<T extends KubeObject>(resource: ResourceKind, map: (obj: T) => string[]): this {
    this.wiring.push((controller) => this.cacheFor<T>(resource).addHandlers(enqueueEach(controller, map)));
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

function enqueueEach<T extends KubeObject>(controller: Controller, keysOf: (obj: T) => string[]) {
  const enqueue = (obj: T) => {
    for (const key of keysOf(obj)) controller.queue.add(key);
  };
  return {
    onAdd: enqueue,
    onDelete: enqueue,
    onUpdate: (oldObj: T, newObj: T) => {
      const keys = new Set([...keysOf(oldObj), ...keysOf(newObj)]);
      for (const key of keys) controller.queue.add(key);
    },
  };
}
