import type { Pod } from '@kubelet-ts/api';
import type { PodStatusApi } from '../api-types.js';

/** An error as kube-client throws them: an HTTP status code and a metav1.Status reason. */
export class FakeApiError extends Error {
  readonly statusCode: number;
  readonly reason: string;
  constructor(statusCode: number, reason: string, message: string) {
    super(message);
    this.name = 'FakeApiError';
    this.statusCode = statusCode;
    this.reason = reason;
  }
}

export type FakePodStatusApiCall =
  | { method: 'get'; namespace: string; name: string }
  | { method: 'patchStatus'; namespace: string; name: string; patch: Record<string, unknown> }
  | { method: 'delete'; namespace: string; name: string; options: { gracePeriodSeconds: 0; uid: string } };

type Method = FakePodStatusApiCall['method'];

// The merged lists of PodStatus and their keys (everything else is replaced whole).
const MERGE_KEYS: Readonly<Record<string, string>> = { conditions: 'type', podIPs: 'ip', hostIPs: 'ip' };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeMap(target: Obj, patch: Obj): Obj {
  const out: Obj = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) delete out[k];
    else if (isObj(v) && isObj(out[k])) out[k] = mergeMap(out[k], v);
    else out[k] = structuredClone(v);
  }
  return out;
}

function mergeList(current: unknown, items: unknown[], key: string, order: unknown): Obj[] {
  let list = (Array.isArray(current) ? current : []).filter(isObj).map((o) => ({ ...o }));
  for (const item of items.filter(isObj)) {
    const i = list.findIndex((o) => o[key] === item[key]);
    if (item['$patch'] === 'delete') list = list.filter((o) => o[key] !== item[key]);
    else if (i >= 0) list[i] = mergeMap(list[i] as Obj, item);
    else list.push(mergeMap({}, item));
  }
  if (Array.isArray(order)) {
    const rank = new Map(order.filter(isObj).map((o, i) => [o[key], i]));
    list.sort((a, b) => (rank.get(a[key]) ?? Infinity) - (rank.get(b[key]) ?? Infinity));
  }
  return list;
}

/** What the API server does with a strategic merge patch of a pod's status (the part the kubelet uses). */
export function applyPodStatusPatch(status: Obj, patch: Obj): Obj {
  let out: Obj = { ...status };
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    const mergeKey = MERGE_KEYS[k];
    if (v === null) delete out[k];
    else if (mergeKey !== undefined && Array.isArray(v)) out[k] = mergeList(out[k], v, mergeKey, patch[`$setElementOrder/${k}`]);
    else if (isObj(v) && isObj(out[k])) out = { ...out, [k]: mergeMap(out[k], v) };
    else out[k] = structuredClone(v);
  }
  // An order directive alone still orders the list.
  for (const [k, mergeKey] of Object.entries(MERGE_KEYS)) {
    if (patch[k] === undefined && Array.isArray(patch[`$setElementOrder/${k}`]) && Array.isArray(out[k])) {
      out[k] = mergeList(out[k], [], mergeKey, patch[`$setElementOrder/${k}`]);
    }
  }
  return out;
}

/**
 * A PodStatusApi over an in-memory set of pods, for unit tests: `put` pods, read what the sink did
 * in `calls` (and `patches`), script errors with `failNext`. PATCH applies the status part of the
 * patch as the server would (conditions merged by type, podIPs/hostIPs by ip, other lists
 * replaced, `null` deletes) and refuses a `metadata.uid` that is not the pod's (422, as the real
 * server: "field is immutable"); DELETE checks the UID precondition (409 Conflict) and removes the pod.
 */
export class FakePodStatusApi implements PodStatusApi {
  readonly pods = new Map<string, Pod>();
  readonly calls: FakePodStatusApiCall[] = [];
  readonly #errors = new Map<Method, unknown[]>();

  /** Stores (or replaces) a pod. */
  put(pod: Pod): void {
    this.pods.set(`${pod.metadata.namespace}/${pod.metadata.name}`, structuredClone(pod));
  }

  /** The stored pod, or undefined. */
  pod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  /** The patches sent, in order. */
  get patches(): Array<Record<string, unknown>> {
    return this.calls.flatMap((c) => (c.method === 'patchStatus' ? [c.patch] : []));
  }

  /** The next call of `method` throws `err` (queued: several calls fail in turn). */
  failNext(method: Method, err: unknown): void {
    const queue = this.#errors.get(method) ?? [];
    queue.push(err);
    this.#errors.set(method, queue);
  }

  async get(namespace: string, name: string): Promise<unknown> {
    this.calls.push({ method: 'get', namespace, name });
    await this.#fail('get');
    return structuredClone(this.#existing(namespace, name));
  }

  async patchStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<unknown> {
    this.calls.push({ method: 'patchStatus', namespace, name, patch: structuredClone(patch) });
    await this.#fail('patchStatus');
    const pod = this.#existing(namespace, name);
    const uid = isObj(patch['metadata']) ? patch['metadata']['uid'] : undefined;
    if (uid !== undefined && uid !== pod.metadata.uid) {
      throw new FakeApiError(
        422,
        'Invalid',
        `Pod "${name}" is invalid: metadata.uid: Invalid value: ${JSON.stringify(uid)}: field is immutable`,
      );
    }
    const status = isObj(patch['status']) ? patch['status'] : {};
    pod.status = applyPodStatusPatch((pod.status ?? {}) as Obj, status) as Pod['status'];
    pod.metadata.resourceVersion = String(Number(pod.metadata.resourceVersion ?? '0') + 1);
    return structuredClone(pod);
  }

  async delete(namespace: string, name: string, options: { gracePeriodSeconds: 0; uid: string }): Promise<unknown> {
    this.calls.push({ method: 'delete', namespace, name, options: { ...options } });
    await this.#fail('delete');
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

  async #fail(method: Method): Promise<void> {
    const err = this.#errors.get(method)?.shift();
    if (err !== undefined) throw err;
  }
}
