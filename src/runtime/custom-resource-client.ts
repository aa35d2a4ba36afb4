// A typed client for one custom resource kind on @kubernetes/client-node's CustomObjectsApi.
// Generated per-kind clients (generated/clients/) are this class with the kind's types and names.
import {
  CustomObjectsApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type KubeConfig,
  type V1DeleteOptions,
  type V1Status,
} from '@kubernetes/client-node';
import type { KubeObject } from './informer.ts';
import { collectionPath, type ResourceKind } from './resource.ts';

export type { ResourceKind };

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Field validation for writes: unknown or duplicate fields are errors, as with kubectl. */
const fieldValidation = 'Strict';
const serverSideApply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

export class CustomResourceClient<
  T extends KubeObject,
  L extends { items: T[]; metadata?: { continue?: string; resourceVersion?: string } },
> {
  private readonly api: CustomObjectsApi;
  private readonly watcher: Watch;
  readonly resource: ResourceKind;

  constructor(kubeConfig: KubeConfig, resource: ResourceKind) {
    this.resource = resource;
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
    this.watcher = new Watch(kubeConfig);
  }

  private base(namespace: string) {
    const { group, version, plural } = this.resource;
    return { group, version, plural, namespace };
  }

  private nameOf(obj: T): { namespace: string; name: string } {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`${this.resource.kind}: metadata.name is required`);
    return { namespace: obj.metadata?.namespace ?? '', name };
  }

  async get(namespace: string, name: string): Promise<T> {
    return (await this.api.getNamespacedCustomObject({ ...this.base(namespace), name })) as T;
  }

  /** Lists one namespace, or all namespaces when `namespace` is undefined. */
  async list(namespace?: string, options: ListOptions = {}): Promise<L> {
    const { group, version, plural } = this.resource;
    const params = { group, version, plural, ...options, _continue: options.continue };
    const result =
      namespace === undefined
        ? await this.api.listClusterCustomObject(params)
        : await this.api.listNamespacedCustomObject({ ...params, namespace });
    return result as L;
  }

  async create(obj: T): Promise<T> {
    const { namespace } = this.nameOf(obj);
    return (await this.api.createNamespacedCustomObject({ ...this.base(namespace), body: obj, fieldValidation })) as T;
  }

  /** Update with optimistic concurrency: metadata.resourceVersion must be current. */
  async replace(obj: T): Promise<T> {
    const { namespace, name } = this.nameOf(obj);
    return (await this.api.replaceNamespacedCustomObject({ ...this.base(namespace), name, body: obj, fieldValidation })) as T;
  }

  async mergePatch(namespace: string, name: string, patch: object): Promise<T> {
    return (await this.api.patchNamespacedCustomObject(
      { ...this.base(namespace), name, body: patch, fieldValidation },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as T;
  }

  /** Server-side apply of the fields in `obj`, owned by `fieldManager`. */
  async apply(obj: T, options: ApplyOptions): Promise<T> {
    return (await this.api.patchNamespacedCustomObject(this.applyParams(obj, options), serverSideApply)) as T;
  }

  async mergePatchStatus(namespace: string, name: string, patch: object): Promise<T> {
    return (await this.api.patchNamespacedCustomObjectStatus(
      { ...this.base(namespace), name, body: patch, fieldValidation },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as T;
  }

  /** Server-side apply of the status fields in `obj`, owned by `fieldManager`. */
  async applyStatus(obj: T, options: ApplyOptions): Promise<T> {
    return (await this.api.patchNamespacedCustomObjectStatus(this.applyParams(obj, options), serverSideApply)) as T;
  }

  async replaceStatus(obj: T): Promise<T> {
    const { namespace, name } = this.nameOf(obj);
    return (await this.api.replaceNamespacedCustomObjectStatus({ ...this.base(namespace), name, body: obj, fieldValidation })) as T;
  }

  async delete(namespace: string, name: string, options: V1DeleteOptions = {}): Promise<V1Status> {
    return (await this.api.deleteNamespacedCustomObject({ ...this.base(namespace), name, body: options })) as V1Status;
  }

  /** The collection path, for watches: /apis/<group>/<version>[/namespaces/<ns>]/<plural>. */
  path(namespace?: string): string {
    return collectionPath(this.resource, namespace);
  }

  /** Starts a watch; abort the returned controller to stop it. `onDone` runs once when it ends. */
  watch(
    namespace: string | undefined,
    query: Record<string, string | number | boolean>,
    onEvent: (type: WatchEventType, obj: T) => void,
    onDone: (err?: unknown) => void,
  ): Promise<AbortController> {
    return this.watcher.watch(this.path(namespace), query, (type, obj) => onEvent(type as WatchEventType, obj as T), onDone);
  }

  private applyParams(obj: T, options: ApplyOptions) {
    const { namespace, name } = this.nameOf(obj);
    return { ...this.base(namespace), name, body: this.withTypeMeta(obj), fieldValidation, ...options };
  }

  private withTypeMeta(obj: T): T {
    return { ...obj, apiVersion: this.resource.apiVersion, kind: this.resource.kind };
  }
}
