import { KUBERNETES_POD_UID_LABEL } from '@kubelet-ts/container-runtime';
import type { Container, ContainerStats as CriContainerStats, PodSandbox } from '@kubelet-ts/cri-client';
import { StatsError } from '../errors.js';
import type { SummaryContext } from './summary-context.js';

/** The runtime's sandboxes, running containers and container stats, by pod UID and container ID. */
export interface RuntimeSnapshot {
  sandboxesByUid: Map<string, PodSandbox[]>;
  /** Running containers by pod UID (through their sandbox). */
  containersByUid: Map<string, Container[]>;
  statsById: Map<string, CriContainerStats>;
}

export const EMPTY_SNAPSHOT: RuntimeSnapshot = { sandboxesByUid: new Map(), containersByUid: new Map(), statsById: new Map() };

/** Lists sandboxes, containers and their stats at once (upstream listPodStats' CRI calls). */
export async function runtimeSnapshot(ctx: SummaryContext): Promise<RuntimeSnapshot> {
  let sandboxes: PodSandbox[];
  let containers: Container[];
  let stats: CriContainerStats[];
  try {
    [sandboxes, containers, stats] = await Promise.all([
      ctx.runtimeService.listPodSandbox({}).then((r) => r.items),
      ctx.runtimeService.listContainers({}).then((r) => r.containers),
      ctx.runtimeService.listContainerStats({}).then((r) => r.stats),
    ]);
  } catch (err) {
    throw StatsError.from(err, 'RUNTIME', 'failed to list pod sandboxes, containers and their stats');
  }
  const sandboxesByUid = new Map<string, PodSandbox[]>();
  const uidBySandbox = new Map<string, string>();
  for (const s of sandboxes) {
    const uid = s.metadata?.uid ?? s.labels[KUBERNETES_POD_UID_LABEL];
    if (uid === undefined || uid === '') continue;
    uidBySandbox.set(s.id, uid);
    sandboxesByUid.set(uid, [...(sandboxesByUid.get(uid) ?? []), s]);
  }
  const containersByUid = new Map<string, Container[]>();
  // Upstream removeTerminatedContainers: only running containers count.
  for (const c of containers) {
    if (c.state !== 'CONTAINER_RUNNING') continue;
    const uid = uidBySandbox.get(c.podSandboxId) ?? c.labels[KUBERNETES_POD_UID_LABEL];
    if (uid === undefined) continue;
    containersByUid.set(uid, [...(containersByUid.get(uid) ?? []), c]);
  }
  const statsById = new Map<string, CriContainerStats>();
  for (const s of stats) if (s.attributes?.id) statsById.set(s.attributes.id, s);
  return { sandboxesByUid, containersByUid, statsById };
}
