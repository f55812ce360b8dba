import type { Pod, PodStatus } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { noopEventRecorder, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import { createLimiter } from './internal/limiter.js';
import { createProbeWorkers, PROBE_TYPES } from './internal/probe-workers.js';
import { MetricsRegistry } from './metrics.js';
import type { ProberMetrics } from './metrics.js';
import { createProber } from './prober.js';
import { createResultsManager } from './results.js';
import type { ResultsManager } from './results.js';
import type { ContainerRef, ExecFn, ProbeResultChange, ProbeType, ProbeWorkerInfo, Prober } from './types.js';

export type { ProbeWorkerInfo };

export interface ProbeManagerOptions {
  /** Runs exec probes' commands (the kubelet wires CRI ExecSync: createCriExecFn). */
  exec: ExecFn;
  clock?: Clock;
  logger?: Logger;
  /**
   * Receives upstream's probe events about the container, one per probe run: Unhealthy
   * (`Liveness probe failed: <output>`, `… probe errored and resulted in unknown state: …`) and
   * ProbeWarning (`Readiness probe warning: <output>`). Default: dropped.
   */
  recorder?: EventRecorder;
  /** [0, 1) source for the restart jitter. Default Math.random. */
  random?: () => number;
  /** Probes running at once across every worker; more wait in FIFO order. Default 64. */
  maxConcurrentProbes?: number;
  /** `<major>.<minor>` for `User-Agent: kube-probe/…`. Default 1.34. */
  userAgentVersion?: string;
  /** Replaces the network/exec prober (unit tests script outcomes with it). */
  prober?: Prober;
  /**
   * Where `prober_probe_total` and `prober_probe_duration_seconds` are recorded, with upstream's names and
   * labels (the kubelet gives the registry behind `/metrics/probes`). Default: recorded nowhere but `metrics()`.
   */
  metrics?: Metrics;
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

export function createProbeManager(options: ProbeManagerOptions): ProbeManager {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const limiter = createLimiter(Math.max(1, options.maxConcurrentProbes ?? 64));
  const metrics = new MetricsRegistry(options.metrics ?? noopMetrics);
  const results: Record<ProbeType, ResultsManager> = {
    liveness: createResultsManager(),
    readiness: createResultsManager(),
    startup: createResultsManager(),
  };
  const prober =
    options.prober ??
    createProber({
      exec: options.exec,
      clock,
      ...(options.userAgentVersion !== undefined ? { userAgentVersion: options.userAgentVersion } : {}),
    });
  const workers = createProbeWorkers(
    {
      clock,
      recorder: options.recorder ?? noopEventRecorder,
      random: options.random ?? Math.random,
      limiter,
      prober,
      metrics,
      results,
      startedAt: clock.now(),
    },
    logger,
  );

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
    addPod: (pod) => workers.addPod(pod),
    removePod: (uid) => workers.removePod(uid),
    updatePodStatus: (pod, status) => workers.updatePodStatus(pod, status),
    readiness: {
      isReady(containerId, ref) {
        const cached = results.readiness.get(containerId);
        if (cached !== undefined) return cached === 'success';
        return !workers.hasProbe(containerId, 'readiness', ref);
      },
    },
    startup: {
      isStarted(containerId, ref) {
        const cached = results.startup.get(containerId);
        if (cached !== undefined) return cached === 'success';
        return !workers.hasProbe(containerId, 'startup', ref);
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
    workers: () => workers.list(),
    stop: () => workers.stop(),
  };
}
