import { StatusReason } from '@kubelet-ts/api';
import type { Lease } from '@kubelet-ts/api';
import type { LeaseApi } from '../ports.js';
import { alreadyExists, apiStatusError, conflict, notFound } from './api-error.js';

export interface FakeLeaseApiCall {
  method: 'get' | 'create' | 'update';
  namespace: string;
  name: string;
  body?: Lease;
}

type Method = FakeLeaseApiCall['method'];

/**
 * LeaseApi over an in-memory store with the API server's rules: create refuses a taken name,
 * update needs the current `resourceVersion` (Conflict when stale, Invalid when missing) and bumps
 * it. Calls are recorded; `failNext` makes the next calls of a method throw.
 */
export class FakeLeaseApi implements LeaseApi {
  readonly leases = new Map<string, Lease>();
  readonly calls: FakeLeaseApiCall[] = [];
  #failures = new Map<Method, Error[]>();
  #resourceVersion = 100;

  failNext(method: Method, ...errors: Error[]): void {
    this.#failures.set(method, [...(this.#failures.get(method) ?? []), ...errors]);
  }

  /** The stored lease of `namespace/name`. */
  lease(namespace: string, name: string): Lease | undefined {
    return this.leases.get(`${namespace}/${name}`);
  }

  /** Another writer's update: the stored lease's resourceVersion moves, so ours becomes stale. */
  touch(namespace: string, name: string): void {
    const lease = this.lease(namespace, name);
    if (lease !== undefined) lease.metadata.resourceVersion = String(++this.#resourceVersion);
  }

  #record(method: Method, namespace: string, name: string, body?: Lease): void {
    this.calls.push({ method, namespace, name, ...(body === undefined ? {} : { body: structuredClone(body) }) });
    const err = this.#failures.get(method)?.shift();
    if (err !== undefined) throw err;
  }

  #run(fn: () => Lease): Promise<unknown> {
    try {
      return Promise.resolve(structuredClone(fn()));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  get(namespace: string, name: string): Promise<unknown> {
    return this.#run(() => {
      this.#record('get', namespace, name);
      const lease = this.lease(namespace, name);
      if (lease === undefined) throw notFound(`leases.coordination.k8s.io "${name}"`);
      return lease;
    });
  }

  create(lease: Lease): Promise<unknown> {
    const namespace = lease.metadata.namespace ?? '';
    return this.#run(() => {
      this.#record('create', namespace, lease.metadata.name, lease);
      if (this.lease(namespace, lease.metadata.name) !== undefined)
        throw alreadyExists(`leases.coordination.k8s.io "${lease.metadata.name}"`);
      const stored = structuredClone(lease);
      stored.metadata.uid = `uid-lease-${lease.metadata.name}`;
      stored.metadata.resourceVersion = String(++this.#resourceVersion);
      this.leases.set(`${namespace}/${lease.metadata.name}`, stored);
      return stored;
    });
  }

  update(lease: Lease): Promise<unknown> {
    const namespace = lease.metadata.namespace ?? '';
    const name = lease.metadata.name;
    return this.#run(() => {
      this.#record('update', namespace, name, lease);
      const current = this.lease(namespace, name);
      if (current === undefined) throw notFound(`leases.coordination.k8s.io "${name}"`);
      const rv = lease.metadata.resourceVersion;
      if (rv === undefined || rv === '')
        throw apiStatusError(422, StatusReason.Invalid, 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
      if (rv !== current.metadata.resourceVersion) throw conflict(`leases.coordination.k8s.io "${name}"`);
      const stored = structuredClone(lease);
      stored.metadata.resourceVersion = String(++this.#resourceVersion);
      this.leases.set(`${namespace}/${name}`, stored);
      return stored;
    });
  }
}
