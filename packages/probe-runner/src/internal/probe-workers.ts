import type { Container, Pod, PodStatus } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { probeSpec } from '../prober.js';
import type { ContainerRef, ProbeType, ProbeWorkerInfo } from '../types.js';
import { knownStatus } from './known-status.js';
import { ProbeWorker } from './worker.js';
import type { KnownPodStatus, ProbedContainerList, WorkerContext } from './worker.js';

export const PROBE_TYPES: readonly ProbeType[] = ['liveness', 'readiness', 'startup'];

/** Upstream prober.Manager's workers map: one worker per (pod UID, container, probe type) with a probe. */
export interface ProbeWorkers {
  addPod(pod: Pod): void;
  removePod(uid: string): void;
  updatePodStatus(pod: Pod, status: PodStatus): void;
  /** Whether the container (found through the ref or the learnt IDs) has a probe of this type. */
  hasProbe(containerId: string, type: ProbeType, ref: ContainerRef | undefined): boolean;
  list(): ProbeWorkerInfo[];
  /** Stops every worker and takes no more pods; resolves once running probes returned. */
  stop(): Promise<void>;
}

interface PodEntry {
  pod: Pod;
  status: KnownPodStatus | undefined;
  workers: Map<string, ProbeWorker>;
}

function workerKey(containerName: string, type: ProbeType): string {
  return `${type}/${containerName}`;
}

/** A container that gets probe workers, and the pod-spec list it is declared in (for its events). */
interface ProbedContainer {
  container: Container;
  list: ProbedContainerList;
}

/** Containers that get probe workers: regular ones and sidecars (restartable init containers). */
function probedContainers(pod: Pod): ProbedContainer[] {
  return [
    ...(pod.spec.initContainers ?? [])
      .filter((c) => c.restartPolicy === 'Always')
      .map((container) => ({ container, list: 'initContainers' as const })),
    ...pod.spec.containers.map((container) => ({ container, list: 'containers' as const })),
  ];
}

function findContainer(pod: Pod, name: string): Container | undefined {
  return probedContainers(pod).find((c) => c.container.name === name)?.container;
}

export function createProbeWorkers(base: Omit<WorkerContext, 'podOf' | 'onExit'>, logger: Logger): ProbeWorkers {
  const pods = new Map<string, PodEntry>();
  /** Container ID → pod UID and name, for lookups without a ref. */
  const byContainerId = new Map<string, { uid: string; name: string }>();
  let stopped = false;
  const ctx: WorkerContext = {
    ...base,
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
    for (const { container, list } of probedContainers(pod)) {
      for (const type of PROBE_TYPES) {
        const spec = probeSpec({ container, probeType: type });
        const key = workerKey(container.name, type);
        if (spec === undefined || entry.workers.has(key)) continue;
        const worker = new ProbeWorker(ctx, pod, { container, list }, type, spec, logger);
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
        if (c !== undefined && c.running && ctx.results.readiness.get(c.id) !== 'success') worker.trigger();
      }
    },
    hasProbe(containerId, type, ref) {
      let container: Container | undefined;
      if (ref !== undefined) container = findContainer(ref.pod, ref.containerName);
      else {
        const known = byContainerId.get(containerId);
        const entry = known === undefined ? undefined : pods.get(known.uid);
        if (entry !== undefined && known !== undefined) container = findContainer(entry.pod, known.name);
      }
      return container !== undefined && probeSpec({ container, probeType: type }) !== undefined;
    },
    list() {
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
