// A typed client for one custom resource kind on @kubernetes/client-node's CustomObjectsApi.
// Generated per-kind clients (generated/clients/) are this class with the kind's types and names. The
// operator imports those modules for their ResourceKind only, so the client library (tens of MiB) is
// loaded on first use of a client, not with the module.
import type { CustomObjectsApi, KubeConfig, V1DeleteOptions, V1Status, Watch } from '@kubernetes/client-node';
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

type ClientLibrary = typeof import('@kubernetes/client-node');
let library: Promise<ClientLibrary> | undefined;
const clientLibrary = () => (library ??= import('@kubernetes/client-node'));

export class CustomResourceClient<
  T extends KubeObject,
  L extends { items: T[]; metadata?: { continue?: string; resourceVersion?: string } },
> {
  private client?: Promise<{ api: CustomObjectsApi; watcher: Watch; lib: ClientLibrary }>;
  private readonly kubeConfig: KubeConfig;
  readonly resource: ResourceKind;

  constructor(kubeConfig: KubeConfig, resource: ResourceKind) {
    this.resource = resource;
    this.kubeConfig = kubeConfig;
  }

  private connect() {
    return (this.client ??= clientLibrary().then((lib) => ({
      api: this.kubeConfig.makeApiClient(lib.CustomObjectsApi),
      watcher: new lib.Watch(this.kubeConfig),
      lib,
    })));
  }

  private async header(strategy: 'MergePatch' | 'ServerSideApply') {
    const { lib } = await this.connect();
    return lib.setHeaderOptions('Content-Type', lib.PatchStrategy[strategy]);
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
    return (await (await this.connect()).api.getNamespacedCustomObject({ ...this.base(namespace), name })) as T;
  }

  /** Lists one namespace, or all namespaces when `namespace` is undefined. */
  async list(namespace?: string, options: ListOptions = {}): Promise<L> {
    const { group, version, plural } = this.resource;
    const params = { group, version, plural, ...options, _continue: options.continue };
    const result =
      namespace === undefined
        ? await (await this.connect()).api.listClusterCustomObject(params)
        : await (await this.connect()).api.listNamespacedCustomObject({ ...params, namespace });
    return result as L;
  }

  async create(obj: T): Promise<T> {
    const { namespace } = this.nameOf(obj);
    return (await (await this.connect()).api.createNamespacedCustomObject({ ...this.base(namespace), body: obj, fieldValidation })) as T;
  }

  /** Update with optimistic concurrency: metadata.resourceVersion must be current. */
  async replace(obj: T): Promise<T> {
    const { namespace, name } = this.nameOf(obj);
    return (await (
      await this.connect()
    ).api.replaceNamespacedCustomObject({ ...this.base(namespace), name, body: obj, fieldValidation })) as T;
  }

  async mergePatch(namespace: string, name: string, patch: object): Promise<T> {
    return (await (
      await this.connect()
    ).api.patchNamespacedCustomObject(
      { ...this.base(namespace), name, body: patch, fieldValidation },
      await this.header('MergePatch'),
    )) as T;
  }

  /** Server-side apply of the fields in `obj`, owned by `fieldManager`. */
  async apply(obj: T, options: ApplyOptions): Promise<T> {
    return (await (
      await this.connect()
    ).api.patchNamespacedCustomObject(this.applyParams(obj, options), await this.header('ServerSideApply'))) as T;
  }

  async mergePatchStatus(namespace: string, name: string, patch: object): Promise<T> {
    return (await (
      await this.connect()
    ).api.patchNamespacedCustomObjectStatus(
      { ...this.base(namespace), name, body: patch, fieldValidation },
      await this.header('MergePatch'),
    )) as T;
  }

  /** Server-side apply of the status fields in `obj`, owned by `fieldManager`. */
  async applyStatus(obj: T, options: ApplyOptions): Promise<T> {
    return (await (
      await this.connect()
    ).api.patchNamespacedCustomObjectStatus(this.applyParams(obj, options), await this.header('ServerSideApply'))) as T;
  }

  async replaceStatus(obj: T): Promise<T> {
    const { namespace, name } = this.nameOf(obj);
    return (await (
      await this.connect()
    ).api.replaceNamespacedCustomObjectStatus({ ...this.base(namespace), name, body: obj, fieldValidation })) as T;
  }

  async delete(namespace: string, name: string, options: V1DeleteOptions = {}): Promise<V1Status> {
    return (await (await this.connect()).api.deleteNamespacedCustomObject({ ...this.base(namespace), name, body: options })) as V1Status;
  }

  /** The collection path, for watches: /apis/<group>/<version>[/namespaces/<ns>]/<plural>. */
  path(namespace?: string): string {
    return collectionPath(this.resource, namespace);
  }

  /** Starts a watch; abort the returned controller to stop it. `onDone` runs once when it ends. */
  async watch(
    namespace: string | undefined,
    query: Record<string, string | number | boolean>,
    onEvent: (type: WatchEventType, obj: T) => void,
    onDone: (err?: unknown) => void,
  ): Promise<AbortController> {
    const { watcher } = await this.connect();
    return watcher.watch(this.path(namespace), query, (type, obj) => onEvent(type as WatchEventType, obj as T), onDone);
  }

  private applyParams(obj: T, options: ApplyOptions) {
    const { namespace, name } = this.nameOf(obj);
    return { ...this.base(namespace), name, body: this.withTypeMeta(obj), fieldValidation, ...options };
  }

  private withTypeMeta(obj: T): T {
    return { ...obj, apiVersion: this.resource.apiVersion, kind: this.resource.kind };
  }
}
