import { NODE_PATCH_META } from '@kubelet-ts/api';
import type { Node, StrategicMergePatch } from '@kubelet-ts/api';
import type { NodeApi, NodeLister } from '../ports.js';
import { alreadyExists, notFound } from './api-error.js';
import { applyMap } from './apply-patch.js';

export interface FakeNodeApiCall {
  method: 'create' | 'get' | 'patchStatus';
  name: string;
  body?: Node | StrategicMergePatch;
}

type Method = FakeNodeApiCall['method'];

/**
 * NodeApi over an in-memory store, shaped like the API server: create assigns uid,
 * resourceVersion and creationTimestamp (AlreadyExists when taken), get answers NotFound,
 * patchStatus applies the strategic merge patch to metadata and status (the spec is kept, as the
 * status subresource does) and bumps the resourceVersion only when something changed. Every call
 * is recorded in `calls`; `failNext` makes the next calls of a method throw.
 */
export class FakeNodeApi implements NodeApi {
  readonly nodes = new Map<string, Node>();
  readonly calls: FakeNodeApiCall[] = [];
  #failures = new Map<Method, Error[]>();
  #resourceVersion = 1;

  /** The next call(s) of `method` throw these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.#failures.set(method, [...(this.#failures.get(method) ?? []), ...errors]);
  }

  /** Stores a node as if another party had created it. */
  put(node: Node): Node {
    const stored = structuredClone(node);
    stored.metadata.uid ??= `uid-${node.metadata.name}`;
    stored.metadata.resourceVersion = String(++this.#resourceVersion);
    stored.metadata.creationTimestamp ??= '2026-01-01T00:00:00Z';
    this.nodes.set(node.metadata.name, stored);
    return structuredClone(stored);
  }

  /** The node informer over this store (always in sync). */
  lister(): NodeLister {
    return { get: (name) => structuredClone(this.nodes.get(name)) };
  }

  /** The patch bodies sent so far. */
  get patches(): StrategicMergePatch[] {
    return this.calls.filter((c) => c.method === 'patchStatus').map((c) => c.body as StrategicMergePatch);
  }

  #record(method: Method, name: string, body?: Node | StrategicMergePatch): void {
    this.calls.push({ method, name, ...(body === undefined ? {} : { body: structuredClone(body) }) });
    const err = this.#failures.get(method)?.shift();
    if (err !== undefined) throw err;
  }

  create(node: Node): Promise<unknown> {
    try {
      this.#record('create', node.metadata.name, node);
      if (this.nodes.has(node.metadata.name)) throw alreadyExists(`nodes "${node.metadata.name}"`);
      return Promise.resolve(this.put(node));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  get(name: string): Promise<unknown> {
    try {
      this.#record('get', name);
      const node = this.nodes.get(name);
      if (node === undefined) throw notFound(`nodes "${name}"`);
      return Promise.resolve(structuredClone(node));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  patchStatus(name: string, patch: StrategicMergePatch): Promise<unknown> {
    try {
      this.#record('patchStatus', name, patch);
      const node = this.nodes.get(name);
      if (node === undefined) throw notFound(`nodes "${name}"`);
      const next = applyMap(node as Record<string, unknown>, patch, NODE_PATCH_META) as Node;
      next.spec = node.spec;
      if (JSON.stringify(next) !== JSON.stringify(node)) {
        next.metadata = { ...next.metadata, resourceVersion: String(++this.#resourceVersion) };
        this.nodes.set(name, next);
      }
      return Promise.resolve(structuredClone(this.nodes.get(name)));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}
