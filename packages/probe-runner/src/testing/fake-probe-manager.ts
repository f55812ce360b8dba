import type { Pod, PodStatus } from '@kubelet-ts/api';
import type { ProberMetrics } from '../metrics.js';
import type { ProbeManager, ProbeWorkerInfo } from '../probe-manager.js';
import { createResultsManager } from '../results.js';
import type { ResultsManager } from '../results.js';
import type { ProbeResult, ProbeResultChange, ProbeType } from '../types.js';

/**
 * A probe manager whose results a test sets by hand (`setResult`): no workers, no timers.
 * Records pod additions, removals and status updates. Containers without a result are ready,
 * started and alive (as without probes).
 */
export class FakeProbeManager implements ProbeManager {
  readonly added: Pod[] = [];
  readonly removed: string[] = [];
  readonly statusUpdates: Array<{ pod: Pod; status: PodStatus }> = [];
  stopped = false;
  readonly results: Readonly<Record<ProbeType, ResultsManager>> = {
    liveness: createResultsManager(),
    readiness: createResultsManager(),
    startup: createResultsManager(),
  };
  readonly #listeners = new Set<(change: ProbeResultChange) => void>();

  constructor() {
    for (const type of ['liveness', 'readiness', 'startup'] as const) {
      this.results[type].onUpdate((u) => {
        for (const listener of this.#listeners) listener({ probeType: type, ...u });
      });
    }
  }

  /** Sets a cached result (announced to onResultChange listeners when it changed). */
  setResult(
    type: ProbeType,
    containerId: string,
    result: ProbeResult,
    ref: { podUID: string; containerName: string } = { podUID: '', containerName: '' },
  ): void {
    this.results[type].set(containerId, result, ref);
  }

  addPod(pod: Pod): void {
    this.added.push(pod);
  }
  removePod(uid: string): void {
    this.removed.push(uid);
  }
  updatePodStatus(pod: Pod, status: PodStatus): void {
    this.statusUpdates.push({ pod, status });
  }
  readonly readiness = { isReady: (id: string): boolean => (this.results.readiness.get(id) ?? 'success') === 'success' };
  readonly startup = { isStarted: (id: string): boolean => (this.results.startup.get(id) ?? 'success') === 'success' };
  readonly probeResults = {
    livenessFailed: (id: string): boolean => this.results.liveness.get(id) === 'failure',
    startupFailed: (id: string): boolean => this.results.startup.get(id) === 'failure',
    startupSucceeded: (id: string): boolean => (this.results.startup.get(id) ?? 'success') === 'success',
  };
  onResultChange(listener: (change: ProbeResultChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  metrics(): ProberMetrics {
    return { probeTotal: [], probeDuration: [], missedRuns: 0, activeProbes: 0, waitingProbes: 0 };
  }
  workers(): ProbeWorkerInfo[] {
    return [];
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
}
