import type { ProbeResult } from './types.js';

/** What a results manager keeps per container and tells its listeners. */
export interface ResultUpdate {
  containerId: string;
  podUID: string;
  containerName: string;
  result: ProbeResult;
  previous: ProbeResult | undefined;
}

/**
 * Upstream prober/results.Manager: the cached result of one probe type per container ID, and a
 * subscription to changes (only real changes are announced, as upstream).
 */
export interface ResultsManager {
  get(containerId: string): ProbeResult | undefined;
  /** Sets the result; announces it when it differs from the cached one. */
  set(containerId: string, result: ProbeResult, ref: { podUID: string; containerName: string }): void;
  /** Forgets a container (no announcement). */
  remove(containerId: string): void;
  /** Listens to changes; returns the unsubscribe function. */
  onUpdate(listener: (update: ResultUpdate) => void): () => void;
  /** The number of cached containers. */
  readonly size: number;
}

export function createResultsManager(): ResultsManager {
  const cache = new Map<string, ProbeResult>();
  const listeners = new Set<(update: ResultUpdate) => void>();
  return {
    get: (id) => cache.get(id),
    set(containerId, result, ref) {
      const previous = cache.get(containerId);
      if (previous === result) return;
      cache.set(containerId, result);
      const update: ResultUpdate = { containerId, podUID: ref.podUID, containerName: ref.containerName, result, previous };
      for (const listener of listeners) listener(update);
    },
    remove(containerId) {
      cache.delete(containerId);
    },
    onUpdate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return cache.size;
    },
  };
}
