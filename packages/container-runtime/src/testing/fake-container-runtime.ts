import type { Container, Pod } from '@kubelet-ts/api';
import type { Backoff, Clock } from '@kubelet-ts/common';
import { formatGoDuration, systemClock } from '@kubelet-ts/common';
import { backoffKey, hashContainer } from '../hash.js';
import { toRunningPod, toRunningPodWithAllContainers } from '../running-pod.js';
import type {
  ContainerGCPolicy,
  ContainerRuntime,
  PodSyncResult,
  RunningPod,
  RuntimeCondition,
  RuntimeContainerState,
  RuntimeContainerStatus,
  RuntimePodStatus,
  RuntimeSandboxStatus,
  SyncResult,
} from '../types.js';

/** The methods of {@link ContainerRuntime}, as recorded in {@link FakeContainerRuntime.calls}. */
export type FakeRuntimeMethod = keyof ContainerRuntime;

/** One recorded call (arguments as given; statuses are not copied). */
export type FakeRuntimeCall =
  | { method: 'getPods'; all: boolean }
  | { method: 'getPodStatus'; uid: string; name: string; namespace: string }
  | { method: 'syncPod'; pod: Pod; status: RuntimePodStatus }
  | { method: 'killPod'; pod: Pod | undefined; running: RunningPod; gracePeriodOverrideSeconds: number | undefined }
  | { method: 'garbageCollect'; policy: ContainerGCPolicy; allSourcesReady: boolean }
  | { method: 'removeDeletedPod'; uid: string; status: RuntimePodStatus }
  | { method: 'status' };

/** The in-memory state of one pod. Tests may mutate it directly. */
export interface FakePodState {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: RuntimeSandboxStatus[];
  containers: RuntimeContainerStatus[];
}

/** A scripted SyncPod: replaces the default "start what is missing" behaviour. */
export type FakeSyncPodHandler = (
  pod: Pod,
  status: RuntimePodStatus,
  crashLoopBackoff: Backoff,
  runtime: FakeContainerRuntime,
) => PodSyncResult | Promise<PodSyncResult>;

export interface FakeContainerRuntimeOptions {
  /** Times of created/started/finished containers; defaults to the system clock. */
  clock?: Clock;
  /** The pod IP given to new non-host-network sandboxes (default 10.88.0.<n>). */
  podIP?: (uid: string) => string;
  /**
   * Apply CrashLoopBackOff in the default syncPod as the real manager does: an exited container
   * still inside its back-off window is not restarted and reported as CrashLoopBackOff. Default false.
   */
  crashLoopBackoff?: boolean;
}

/**
 * An in-memory ContainerRuntime for the lifecycle core's unit tests: pods, sandboxes and
 * containers that tests set up and mutate, every call recorded, errors injectable per method.
 *
 * The default `syncPod` makes sure there is a ready sandbox and then, like the real manager
 * without back-off: runs each init container to completion (exit 0) in order, and starts
 * every sidecar and regular container that is not running and should run under the pod's
 * restartPolicy. `killPod` marks containers exited (137 when they were running) and sandboxes
 * not ready. Replace it with `onSyncPod` to script anything else.
 */
export class FakeContainerRuntime implements ContainerRuntime {
  /** Every call, in order. */
  readonly calls: FakeRuntimeCall[] = [];
  /** Pods by UID. */
  readonly pods = new Map<string, FakePodState>();
  /** What `status()` returns. */
  conditions: RuntimeCondition[] = [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ];
  /** Replaces the default SyncPod behaviour when set. */
  onSyncPod: FakeSyncPodHandler | undefined;

  readonly #clock: Clock;
  readonly #podIP: (uid: string) => string;
  readonly #applyBackoff: boolean;
  readonly #persistentErrors = new Map<FakeRuntimeMethod, Error>();
  readonly #nextErrors = new Map<FakeRuntimeMethod, Error[]>();
  #nextId = 1;
  #nextIP = 2;

  constructor(options: FakeContainerRuntimeOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#podIP = options.podIP ?? (() => `10.88.0.${this.#nextIP++}`);
    this.#applyBackoff = options.crashLoopBackoff ?? false;
  }

  // ---- error injection ----

  /** Every later call of `method` rejects with `error` (until cleared with `undefined`). */
  setError(method: FakeRuntimeMethod, error: Error | undefined): void {
    if (error === undefined) this.#persistentErrors.delete(method);
    else this.#persistentErrors.set(method, error);
  }

  /** The next call of `method` rejects with `error` (queued: call again for more). */
  failNext(method: FakeRuntimeMethod, error: Error): void {
    const queue = this.#nextErrors.get(method) ?? [];
    queue.push(error);
    this.#nextErrors.set(method, queue);
  }

  /** Calls recorded for one method. */
  callsOf<M extends FakeRuntimeMethod>(method: M): Array<Extract<FakeRuntimeCall, { method: M }>> {
    return this.calls.filter((c): c is Extract<FakeRuntimeCall, { method: M }> => c.method === method);
  }

  // ---- state set-up ----

  /** Adds (or returns) the pod's state. */
  ensurePod(uid: string, name: string, namespace: string): FakePodState {
    let state = this.pods.get(uid);
    if (state === undefined) {
      state = { uid, name, namespace, sandboxes: [], containers: [] };
      this.pods.set(uid, state);
    }
    return state;
  }

  /** Adds a sandbox (ready by default) and returns it. */
  addSandbox(
    pod: Pod | { uid: string; name: string; namespace: string },
    fields: Partial<RuntimeSandboxStatus> = {},
  ): RuntimeSandboxStatus {
    const ref = podRef(pod);
    const state = this.ensurePod(ref.uid, ref.name, ref.namespace);
    const previous = state.sandboxes[0];
    const sandbox: RuntimeSandboxStatus = {
      id: `sandbox-${this.#nextId++}`,
      state: 'ready',
      createdAt: this.#clock.now(),
      attempt: previous === undefined ? 0 : previous.attempt + 1,
      additionalIps: [],
      hostNetwork: false,
      ...fields,
    };
    if (sandbox.ip === undefined && !sandbox.hostNetwork && fields.ip === undefined) sandbox.ip = this.#podIP(ref.uid);
    state.sandboxes.unshift(sandbox);
    return sandbox;
  }

  /** Adds a container (running by default) with the given name and returns it. */
  addContainer(
    pod: Pod | { uid: string; name: string; namespace: string },
    name: string,
    fields: Partial<RuntimeContainerStatus> = {},
  ): RuntimeContainerStatus {
    const ref = podRef(pod);
    const state = this.ensurePod(ref.uid, ref.name, ref.namespace);
    const now = this.#clock.now();
    const previous = state.containers.find((c) => c.name === name);
    const status: RuntimeContainerStatus = {
      id: `container-${this.#nextId++}`,
      name,
      state: 'running',
      createdAt: now,
      startedAt: now,
      image: 'busybox',
      imageRef: 'sha256:busybox',
      hash: '',
      restartCount: previous === undefined ? 0 : previous.restartCount + 1,
      ...fields,
    };
    state.containers.unshift(status);
    return status;
  }

  /** Finds a container by ID in any pod. */
  container(id: string): RuntimeContainerStatus | undefined {
    for (const pod of this.pods.values()) {
      const found = pod.containers.find((c) => c.id === id);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Marks a container exited with `exitCode` (and an optional reason such as OOMKilled). */
  exitContainer(id: string, exitCode: number, reason?: string): RuntimeContainerStatus {
    const c = this.container(id);
    if (c === undefined) throw new Error(`FakeContainerRuntime: no container ${id}`);
    c.state = 'exited';
    c.exitCode = exitCode;
    c.finishedAt = this.#clock.now();
    c.reason = reason ?? (exitCode === 0 ? 'Completed' : 'Error');
    return c;
  }

  /** Sets a container's state directly. */
  setContainerState(id: string, state: RuntimeContainerState): void {
    const c = this.container(id);
    if (c === undefined) throw new Error(`FakeContainerRuntime: no container ${id}`);
    c.state = state;
  }

  /** Removes a container (as GC would). */
  removeContainer(id: string): void {
    for (const pod of this.pods.values()) pod.containers = pod.containers.filter((c) => c.id !== id);
  }

  /** Forgets a pod entirely (as if every sandbox and container were removed). */
  removePod(uid: string): void {
    this.pods.delete(uid);
  }

  /** The newest container of a pod with this name. */
  latestContainer(uid: string, name: string): RuntimeContainerStatus | undefined {
    return this.pods.get(uid)?.containers.find((c) => c.name === name);
  }

  // ---- ContainerRuntime ----

  async getPods(all: boolean): Promise<RunningPod[]> {
    this.calls.push({ method: 'getPods', all });
    this.#maybeFail('getPods');
    const out: RunningPod[] = [];
    for (const pod of this.pods.values()) {
      // As stored (not sorted); every container is attached to the first sandbox.
      const status: RuntimePodStatus = { ...pod, ips: [], timestamp: 0 };
      const listed = all ? toRunningPodWithAllContainers(status) : toRunningPod(status);
      // Without `all`, the runtime lists ready sandboxes only.
      const sandboxes = listed.sandboxes.filter((s) => all || s.state === 'ready');
      if (sandboxes.length === 0 && listed.containers.length === 0) continue;
      out.push({ ...listed, sandboxes });
    }
    return out;
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    this.calls.push({ method: 'getPodStatus', uid, name, namespace });
    this.#maybeFail('getPodStatus');
    return this.snapshot(uid, name, namespace);
  }

  /** The pod's status as `getPodStatus` would return it, without recording a call. */
  snapshot(uid: string, name = '', namespace = ''): RuntimePodStatus {
    const pod = this.pods.get(uid);
    const sandboxes = [...(pod?.sandboxes ?? [])]
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((s) => ({ ...s, additionalIps: [...s.additionalIps] }));
    const containers = [...(pod?.containers ?? [])].sort((a, b) => b.createdAt - a.createdAt).map((c) => ({ ...c }));
    const ready = sandboxes.find((s) => s.state === 'ready');
    const ips = ready?.ip !== undefined && ready.ip !== '' ? [ready.ip, ...ready.additionalIps] : [];
    return {
      uid,
      name: pod?.name ?? name,
      namespace: pod?.namespace ?? namespace,
      ips,
      sandboxes,
      containers,
      timestamp: this.#clock.now(),
    };
  }

  async syncPod(pod: Pod, status: RuntimePodStatus, crashLoopBackoff: Backoff, _signal?: AbortSignal): Promise<PodSyncResult> {
    this.calls.push({ method: 'syncPod', pod, status });
    this.#maybeFail('syncPod');
    if (this.onSyncPod !== undefined) return this.onSyncPod(pod, status, crashLoopBackoff, this);
    return this.#defaultSync(pod, crashLoopBackoff);
  }

  async killPod(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<PodSyncResult> {
    this.calls.push({ method: 'killPod', pod, running, gracePeriodOverrideSeconds });
    this.#maybeFail('killPod');
    const state = this.pods.get(running.uid);
    const results: SyncResult[] = [];
    if (state !== undefined) {
      const now = this.#clock.now();
      for (const c of state.containers) {
        if (c.state !== 'running' && c.state !== 'created') continue;
        if (c.state === 'running') {
          c.exitCode = 137;
          c.reason = 'Error';
        } else {
          c.exitCode = 0;
        }
        c.state = 'exited';
        c.finishedAt = now;
        results.push({ action: 'KillContainer', target: c.name });
      }
      for (const s of state.sandboxes) s.state = 'notready';
      results.push({ action: 'KillPodSandbox', target: running.uid });
    }
    return { results };
  }

  async garbageCollect(policy: ContainerGCPolicy, allSourcesReady: boolean, isPodDeleted: (uid: string) => boolean): Promise<void> {
    this.calls.push({ method: 'garbageCollect', policy, allSourcesReady });
    this.#maybeFail('garbageCollect');
    // Enough of the real rules for lifecycle tests: pods that are deleted and fully stopped disappear.
    if (!allSourcesReady) return;
    for (const [uid, state] of this.pods) {
      const stopped = state.containers.every((c) => c.state === 'exited') && state.sandboxes.every((s) => s.state === 'notready');
      if (stopped && isPodDeleted(uid)) this.pods.delete(uid);
    }
  }

  async removeDeletedPod(status: RuntimePodStatus): Promise<void> {
    const { uid } = status;
    this.calls.push({ method: 'removeDeletedPod', uid, status });
    this.#maybeFail('removeDeletedPod');
    const state = this.pods.get(uid);
    if (state === undefined) return;
    const listed = new Set([...status.containers.map((c) => c.id), ...status.sandboxes.map((sb) => sb.id)]);
    state.containers = state.containers.filter((c) => c.state === 'running' || !listed.has(c.id));
    if (state.containers.length === 0) state.sandboxes = state.sandboxes.filter((sb) => sb.state === 'ready' || !listed.has(sb.id));
    if (state.containers.length === 0 && state.sandboxes.length === 0) this.pods.delete(uid);
  }

  async status(): Promise<RuntimeCondition[]> {
    this.calls.push({ method: 'status' });
    this.#maybeFail('status');
    return this.conditions.map((c) => ({ ...c }));
  }

  // ---- internals ----

  #maybeFail(method: FakeRuntimeMethod): void {
    const queue = this.#nextErrors.get(method);
    const next = queue?.shift();
    if (next !== undefined) throw next;
    const persistent = this.#persistentErrors.get(method);
    if (persistent !== undefined) throw persistent;
  }

  #defaultSync(pod: Pod, backoff: Backoff): PodSyncResult {
    const ref = podRef(pod);
    const state = this.ensurePod(ref.uid, ref.name, ref.namespace);
    const results: SyncResult[] = [];
    const podFullName = `${ref.name}_${ref.namespace}`;

    let sandbox = state.sandboxes.find((s) => s.state === 'ready');
    if (sandbox === undefined) {
      // A new sandbox means every old container is killed first, as upstream.
      for (const c of state.containers) {
        if (c.state === 'running' || c.state === 'created') {
          c.exitCode = c.state === 'running' ? 137 : 0;
          c.state = 'exited';
          c.finishedAt = this.#clock.now();
        }
      }
      const neverAndRan = pod.spec.restartPolicy === 'Never' && state.containers.length > 0;
      if (neverAndRan) return { results };
      sandbox = this.addSandbox(ref, { hostNetwork: pod.spec.hostNetwork === true });
      results.push({ action: 'CreatePodSandbox', target: podFullName });
    }

    for (const init of pod.spec.initContainers ?? []) {
      const latest = state.containers.find((c) => c.name === init.name);
      if (init.restartPolicy === 'Always') {
        if (latest?.state !== 'running') {
          this.#start(ref, init, latest);
          results.push({ action: 'StartContainer', target: init.name });
        }
        continue;
      }
      if (latest?.state === 'exited' && latest.exitCode === 0) continue;
      if (latest?.state === 'running') return { results };
      if (latest?.state === 'exited' && pod.spec.restartPolicy === 'Never') return { results };
      const started = this.#start(ref, init, latest);
      started.state = 'exited';
      started.exitCode = 0;
      started.reason = 'Completed';
      started.finishedAt = this.#clock.now();
      results.push({ action: 'InitContainer', target: init.name });
    }

    for (const container of pod.spec.containers) {
      const latest = state.containers.find((c) => c.name === container.name);
      if (latest?.state === 'running') continue;
      if (latest !== undefined && !shouldRestart(pod, latest)) continue;
      if (this.#applyBackoff && latest?.state === 'exited') {
        const key = backoffKey(pod, container);
        if (backoff.isInBackoffSince(key, latest.finishedAt ?? latest.createdAt)) {
          results.push({
            action: 'StartContainer',
            target: container.name,
            reason: 'CrashLoopBackOff',
            message: `back-off ${formatGoDuration(backoff.get(key))} restarting failed container=${container.name} pod=${ref.name}_${ref.namespace}(${ref.uid})`,
          });
          continue;
        }
        backoff.next(key);
      }
      this.#start(ref, container, latest);
      results.push({ action: 'StartContainer', target: container.name });
    }
    const failed = results.find((r) => r.reason !== undefined);
    return failed === undefined ? { results } : { results, error: new Error(`${failed.action} ${failed.target}: ${failed.message ?? ''}`) };
  }

  #start(
    ref: { uid: string; name: string; namespace: string },
    container: Container,
    previous: RuntimeContainerStatus | undefined,
  ): RuntimeContainerStatus {
    return this.addContainer(ref, container.name, {
      image: container.image,
      imageRef: `sha256:${container.image}`,
      hash: hashContainer(container),
      restartCount: previous === undefined ? 0 : previous.restartCount + 1,
    });
  }
}

function podRef(pod: Pod | { uid: string; name: string; namespace: string }): { uid: string; name: string; namespace: string } {
  if ('metadata' in pod) return { uid: pod.metadata.uid, name: pod.metadata.name, namespace: pod.metadata.namespace };
  return pod;
}

function shouldRestart(pod: Pod, latest: RuntimeContainerStatus): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return latest.state === 'exited' && latest.exitCode !== 0;
  return true;
}
