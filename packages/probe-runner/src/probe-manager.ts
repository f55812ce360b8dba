import type { Container, Pod, PodStatus } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createLimiter } from './internal/limiter.js';
import { ProbeWorker } from './internal/worker.js';
import type { KnownContainer, KnownPodStatus, WorkerContext } from './internal/worker.js';
import { MetricsRegistry } from './metrics.js';
import type { ProberMetrics } from './metrics.js';
import { createProber, probeSpec } from './prober.js';
import { createResultsManager } from './results.js';
import type { ResultsManager } from './results.js';
import type { ContainerRef, ExecFn, ProbeResultChange, ProbeType, Prober } from './types.js';

export interface ProbeManagerOptions {
  /** Runs exec probes' commands (the kubelet wires CRI ExecSync: createCriExecFn). */
  exec: ExecFn;
  clock?: Clock;
  logger?: Logger;
  /** [0, 1) source for the restart jitter. Default Math.random. */
  random?: () => number;
  /** Probes running at once across every worker; more wait in FIFO order. Default 64. */
  maxConcurrentProbes?: number;
  /** `<major>.<minor>` for `User-Agent: kube-probe/…`. Default 1.34. */
  userAgentVersion?: string;
  /** Replaces the network/exec prober (unit tests script outcomes with it). */
  prober?: Prober;
}

/** Structurally @kubelet-ts/pod-lifecycle's ReadinessProvider (the ref tells which container of which pod). */
export interface ReadinessResults {
  isReady(containerId: string, ref?: ContainerRef): boolean;
}

/** Structurally @kubelet-ts/pod-lifecycle's StartupProvider. */
export interface StartupResults {
  isStarted(containerId: string, ref?: ContainerRef): boolean;
}

/** Structurally @kubelet-ts/container-runtime's ProbeResults (consulted by computePodActions). */
export interface LivenessStartupResults {
  livenessFailed(containerId: string): boolean;
  startupFailed(containerId: string): boolean;
  startupSucceeded(containerId: string): boolean;
}

/** A worker as seen from outside (debugging, tests). */
export interface ProbeWorkerInfo {
  podUID: string;
  containerName: string;
  probeType: ProbeType;
  containerId: string;
  runs: number;
}

/**
 * Upstream prober.Manager: one worker per (pod UID, container, probe type) with a probe, results
 * cached per container ID, and the views the rest of the kubelet consults.
 */
export interface ProbeManager {
  /** Starts the workers of a pod's containers (and sidecars) that have probes. Idempotent. */
  addPod(pod: Pod): void;
  /** Stops the pod's workers and forgets their results. */
  removePod(uid: string): void;
  /**
   * Feeds the pod's latest status (container IDs and states, pod IP): adds the pod when unknown,
   * removes it once its phase is terminal, and runs readiness probes of not-yet-ready containers
   * at once (upstream UpdatePodStatus' manual trigger).
   */
  updatePodStatus(pod: Pod, status: PodStatus): void;
  /** For status generation: ready when the container has no readiness probe or its probe succeeded. */
  readonly readiness: ReadinessResults;
  /** For status generation: started when the container has no startup probe or its probe succeeded. */
  readonly startup: StartupResults;
  /** For computePodActions: kill on a failed liveness or startup probe. */
  readonly probeResults: LivenessStartupResults;
  /** The raw caches per probe type. */
  readonly results: Readonly<Record<ProbeType, ResultsManager>>;
  /** Every change of a cached result (the kubelet asks for a pod sync). Returns the unsubscribe function. */
  onResultChange(listener: (change: ProbeResultChange) => void): () => void;
  metrics(): ProberMetrics;
  workers(): ProbeWorkerInfo[];
  /** Stops every worker; resolves once running probes returned. */
  stop(): Promise<void>;
}

const PROBE_TYPES: readonly ProbeType[] = ['liveness', 'readiness', 'startup'];

interface PodEntry {
  pod: Pod;
  status: KnownPodStatus | undefined;
  workers: Map<string, ProbeWorker>;
}

function workerKey(containerName: string, type: ProbeType): string {
  return `${type}/${containerName}`;
}

/** Containers that get probe workers: regular ones and sidecars (restartable init containers). */
function probedContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...pod.spec.containers];
}

function findContainer(pod: Pod, name: string): Container | undefined {
  return probedContainers(pod).find((c) => c.name === name);
}

function stripRuntime(id: string | undefined): string {
  return (id ?? '').replace(/^[^:]+:\/\//, '');
}

function knownStatus(status: PodStatus): KnownPodStatus {
  const containers = new Map<string, KnownContainer>();
  for (const st of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const running = st.state?.running;
    const startedAt = running?.startedAt !== undefined ? Date.parse(running.startedAt) : NaN;
    containers.set(st.name, {
      id: stripRuntime(st.containerID),
      running: running !== undefined,
      terminated: st.state?.terminated !== undefined,
      ...(Number.isFinite(startedAt) ? { startedAt } : {}),
    });
  }
  return { phase: status.phase, podIP: status.podIP ?? '', containers };
}

export function createProbeManager(options: ProbeManagerOptions): ProbeManager {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const limiter = createLimiter(Math.max(1, options.maxConcurrentProbes ?? 64));
  const metrics = new MetricsRegistry();
  const results: Record<ProbeType, ResultsManager> = {
    liveness: createResultsManager(),
    readiness: createResultsManager(),
    startup: createResultsManager(),
  };
  const prober =
    options.prober ??
    createProber({ exec: options.exec, clock, ...(options.userAgentVersion !== undefined ? { userAgentVersion: options.userAgentVersion } : {}) });
  const pods = new Map<string, PodEntry>();
  /** Container ID → pod UID and name, for lookups without a ref. */
  const byContainerId = new Map<string, { uid: string; name: string }>();
  let stopped = false;

  const ctx: WorkerContext = {
    clock,
    random: options.random ?? Math.random,
    limiter,
    prober,
    metrics,
    results,
    startedAt: clock.now(),
    podOf: (uid) => pods.get(uid),
    onExit(worker) {
      const entry = pods.get(worker.podUID);
      const key = workerKey(worker.container.name, worker.probeType);
      if (entry?.workers.get(key) === worker) entry.workers.delete(key);
    },
  };

  const addPod = (pod: Pod): void => {
    if (stopped) return;
    const uid = pod.metadata.uid;
    let entry = pods.get(uid);
    if (entry === undefined) {
      entry = { pod, status: undefined, workers: new Map() };
      pods.set(uid, entry);
    }
    for (const container of probedContainers(pod)) {
      for (const type of PROBE_TYPES) {
        const spec = probeSpec({ container, probeType: type });
        const key = workerKey(container.name, type);
        if (spec === undefined || entry.workers.has(key)) continue;
        const worker = new ProbeWorker(ctx, pod, container, type, spec, logger);
        entry.workers.set(key, worker);
        worker.start();
      }
    }
  };

  const removePod = (uid: string): void => {
    const entry = pods.get(uid);
    if (entry === undefined) return;
    pods.delete(uid);
    for (const worker of entry.workers.values()) void worker.stop();
    for (const c of entry.status?.containers.values() ?? []) byContainerId.delete(c.id);
  };

  /** Whether the container (found through the ref or the learnt IDs) has a probe of this type. */
  const hasProbe = (containerId: string, type: ProbeType, ref: ContainerRef | undefined): boolean => {
    let container: Container | undefined;
    if (ref !== undefined) container = findContainer(ref.pod, ref.containerName);
    else {
      const known = byContainerId.get(containerId);
      const entry = known === undefined ? undefined : pods.get(known.uid);
      if (entry !== undefined && known !== undefined) container = findContainer(entry.pod, known.name);
    }
    return container !== undefined && probeSpec({ container, probeType: type }) !== undefined;
  };

  const listeners = new Set<(change: ProbeResultChange) => void>();
  for (const type of PROBE_TYPES) {
    results[type].onUpdate((u) => {
      const change: ProbeResultChange = { probeType: type, ...u };
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (err) {
          logger.error('Probe result listener failed', { err: err instanceof Error ? err.message : String(err) });
        }
      }
    });
  }

  return {
    addPod,
    removePod,
    updatePodStatus(pod, status) {
      const uid = pod.metadata.uid;
      if (status.phase === 'Failed' || status.phase === 'Succeeded') {
        removePod(uid);
        return;
      }
      if (stopped) return;
      if (!pods.has(uid)) addPod(pod);
      const entry = pods.get(uid);
      if (entry === undefined) return;
      entry.pod = pod;
      const previous = entry.status;
      entry.status = knownStatus(status);
      for (const c of previous?.containers.values() ?? []) byContainerId.delete(c.id);
      for (const [name, c] of entry.status.containers) if (c.id !== '') byContainerId.set(c.id, { uid, name });
      // Upstream UpdatePodStatus: a running container not yet ready gets its readiness probe run now.
      for (const worker of entry.workers.values()) {
        if (worker.probeType !== 'readiness') continue;
        const c = entry.status.containers.get(worker.container.name);
        if (c !== undefined && c.running && results.readiness.get(c.id) !== 'success') worker.trigger();
      }
    },
    readiness: {
      isReady(containerId, ref) {
        const cached = results.readiness.get(containerId);
        if (cached !== undefined) return cached === 'success';
        return !hasProbe(containerId, 'readiness', ref);
      },
    },
    startup: {
      isStarted(containerId, ref) {
        const cached = results.startup.get(containerId);
        if (cached !== undefined) return cached === 'success';
        return !hasProbe(containerId, 'startup', ref);
      },
    },
    probeResults: {
      livenessFailed: (id) => results.liveness.get(id) === 'failure',
      startupFailed: (id) => results.startup.get(id) === 'failure',
      startupSucceeded: (id) => results.startup.get(id) === 'success',
    },
    results,
    onResultChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    metrics: () => metrics.snapshot(limiter.active, limiter.waiting),
    workers() {
      const out: ProbeWorkerInfo[] = [];
      for (const [uid, entry] of pods) {
        for (const w of entry.workers.values()) {
          out.push({ podUID: uid, containerName: w.container.name, probeType: w.probeType, containerId: w.containerId, runs: w.runs });
        }
      }
      return out;
    },
    async stop() {
      stopped = true;
      const all = [...pods.values()].flatMap((e) => [...e.workers.values()]);
      pods.clear();
      byContainerId.clear();
      await Promise.all(all.map((w) => w.stop()));
    },
  };
}
