import type { Pod } from '@kubelet-ts/api';
import { isMirrorPod } from '@kubelet-ts/api';
import { FakeApiError } from '@kubelet-ts/status-manager/testing';
import type { MirrorPodApi, NewMirrorPod } from '../mirror-pods.js';

export type FakeMirrorPodApiCall =
  | { method: 'create'; pod: NewMirrorPod }
  | { method: 'get'; namespace: string; name: string }
  | { method: 'delete'; namespace: string; name: string; options: { gracePeriodSeconds: 0; uid: string } };

/**
 * A MirrorPodApi over an in-memory set of pods, for unit tests. `put` pods, read what the manager
 * did in `calls`, script errors with `failNext`. As the API server: POST refuses a name that exists
 * (409 AlreadyExists) and gives the pod a new UID (`mirror-uid-1`, …) and resourceVersion; GET of a
 * missing pod is 404 NotFound; DELETE checks the UID precondition (409 Conflict) and removes the pod
 * at once (grace 0). Errors are `FakeApiError`s of @kubelet-ts/status-manager/testing.
 */
export class FakeMirrorPodApi implements MirrorPodApi {
  /** The pods by `<namespace>/<name>`. */
  readonly pods: Map<string, Pod> = new Map();
  readonly calls: FakeMirrorPodApiCall[] = [];
  readonly #errors = new Map<FakeMirrorPodApiCall['method'], unknown[]>();
  #nextUID = 1;

  /** Stores (or replaces) a pod. */
  put(pod: Pod): void {
    this.pods.set(`${pod.metadata.namespace}/${pod.metadata.name}`, structuredClone(pod));
  }

  /** The stored pod, or undefined. */
  pod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  /** Copies of the stored mirror pods: what the API pod source would hand to `setMirrorPods`. */
  mirrorPods(): Pod[] {
    return [...this.pods.values()].filter(isMirrorPod).map((p) => structuredClone(p));
  }

  /** The calls of one method, in order. */
  callsOf<M extends FakeMirrorPodApiCall['method']>(method: M): Array<Extract<FakeMirrorPodApiCall, { method: M }>> {
    return this.calls.filter((c): c is Extract<FakeMirrorPodApiCall, { method: M }> => c.method === method);
  }

  /** The next call of `method` throws `err` (queued: several calls fail in turn). */
  failNext(method: FakeMirrorPodApiCall['method'], err: unknown): void {
    const queue = this.#errors.get(method) ?? [];
    queue.push(err);
    this.#errors.set(method, queue);
  }

  async create(pod: NewMirrorPod): Promise<unknown> {
    this.calls.push({ method: 'create', pod: structuredClone(pod) });
    this.#fail('create');
    const { namespace, name } = pod.metadata;
    if (this.pods.has(`${namespace}/${name}`)) throw new FakeApiError(409, 'AlreadyExists', `pods "${name}" already exists`);
    const stored: Pod = {
      ...structuredClone(pod),
      metadata: { ...structuredClone(pod.metadata), uid: `mirror-uid-${this.#nextUID++}`, resourceVersion: '1' },
    };
    this.put(stored);
    return structuredClone(stored);
  }

  async get(namespace: string, name: string): Promise<unknown> {
    this.calls.push({ method: 'get', namespace, name });
    this.#fail('get');
    return structuredClone(this.#existing(namespace, name));
  }

  async delete(namespace: string, name: string, options: { gracePeriodSeconds: 0; uid: string }): Promise<unknown> {
    this.calls.push({ method: 'delete', namespace, name, options: { ...options } });
    this.#fail('delete');
    const pod = this.#existing(namespace, name);
    if (pod.metadata.uid !== options.uid) {
      throw new FakeApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on pods "${name}": Precondition failed: UID in precondition: ${options.uid}, UID in object meta: ${pod.metadata.uid}`,
      );
    }
    this.pods.delete(`${namespace}/${name}`);
    return structuredClone(pod);
  }

  #existing(namespace: string, name: string): Pod {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (pod === undefined) throw new FakeApiError(404, 'NotFound', `pods "${name}" not found`);
    return pod;
  }

  #fail(method: FakeMirrorPodApiCall['method']): void {
    const err = this.#errors.get(method)?.shift();
    if (err !== undefined) throw err;
  }
}
