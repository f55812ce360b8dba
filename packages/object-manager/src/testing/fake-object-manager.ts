import type { Pod } from '@kubelet-ts/api';
import type { ObjectCacheEntry, ObjectManager } from '../types.js';

/**
 * An in-memory ObjectManager: `set` objects by namespace/name, `get` returns them (undefined when
 * absent) with no registration check; registered pods are recorded in `registered` (by UID).
 */
export class FakeObjectManager<T extends { metadata: { namespace: string; name: string } }> implements ObjectManager<T> {
  readonly registered = new Map<string, Pod>();
  readonly gets: string[] = [];
  readonly #objects = new Map<string, T>();
  stopped = false;

  set(obj: T): void {
    this.#objects.set(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  }

  delete(namespace: string, name: string): void {
    this.#objects.delete(`${namespace}/${name}`);
  }

  registerPod(pod: Pod): void {
    this.registered.set(pod.metadata.uid, pod);
  }

  unregisterPod(pod: Pod): void {
    this.registered.delete(pod.metadata.uid);
  }

  async get(namespace: string, name: string): Promise<T | undefined> {
    this.gets.push(`${namespace}/${name}`);
    return this.#objects.get(`${namespace}/${name}`);
  }

  objects(): ObjectCacheEntry[] {
    return [];
  }

  stop(): void {
    this.stopped = true;
  }
}
