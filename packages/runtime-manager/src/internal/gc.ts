import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, forEachBounded } from '@kubelet-ts/common';
import type { ContainerGCPolicy, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import { decodeContainerLabels, decodeSandboxLabels } from '../labels.js';
import { removeDeadLogSymlinks } from './log-symlink.js';
import { nsToMs } from './pod-status.js';

/**
 * Container and sandbox removals in flight at once: removing a deleted pod's sandbox takes ~0.5 s on a
 * loaded node, so 110 deleted pods removed one by one took a minute after every sandbox had stopped.
 */
export const GC_REMOVAL_CONCURRENCY = 8;

export interface GcDeps {
  runtimeService: RuntimeService;
  clock: Clock;
  logger: Logger;
  podLogsDir: string;
  /** Where the container log symlinks are; dangling ones of exited containers are removed. */
  containerLogsDir?: string;
  policy: ContainerGCPolicy;
  allSourcesReady: boolean;
  isPodDeleted: (uid: string) => boolean;
  /** Removes a container and its log file. */
  removeContainer: (id: string) => Promise<void>;
  /** Removals in flight at once; default GC_REMOVAL_CONCURRENCY. */
  removalConcurrency?: number;
}

interface Dead {
  id: string;
  createdAt: number;
}

/**
 * Upstream containerGC.GarbageCollect: dead containers per (pod, container name) beyond
 * maxPerPodContainer (oldest first), every dead container of deleted pods, the global
 * maxContainers limit; then sandboxes without containers (all of a deleted pod's, else all but
 * the newest); then the log directories of deleted pods and the dangling container log symlinks.
 */
export async function collectGarbage(deps: GcDeps): Promise<void> {
  const { runtimeService, policy, logger } = deps;
  const limit = deps.removalConcurrency ?? GC_REMOVAL_CONCURRENCY;
  // Which containers go is decided first (it does not depend on removals succeeding), then they are removed together.
  const doomed: string[] = [];
  const remove = (id: string): void => {
    doomed.push(id);
  };

  // ---- containers
  const newestGcTime = deps.clock.now() - policy.minAgeMs;
  const listed = await runtimeService.listContainers({});
  const units = new Map<string, { uid: string; dead: Dead[] }>();
  for (const c of listed.containers) {
    if (c.state === 'CONTAINER_RUNNING') continue;
    const createdAt = nsToMs(c.createdAt);
    if (createdAt > newestGcTime) continue;
    const info = decodeContainerLabels(c.labels);
    if (info.podUID === '' || info.containerName === '') continue; // not ours
    const key = `${info.podUID}/${info.containerName}`;
    let unit = units.get(key);
    if (unit === undefined) {
      unit = { uid: info.podUID, dead: [] };
      units.set(key, unit);
    }
    unit.dead.push({ id: c.id, createdAt });
  }
  for (const unit of units.values()) unit.dead.sort((a, b) => b.createdAt - a.createdAt);

  if (deps.allSourcesReady) {
    for (const [key, unit] of units) {
      if (!deps.isPodDeleted(unit.uid)) continue;
      for (const d of unit.dead) remove(d.id);
      units.delete(key);
    }
  }
  const keepNewest = (keep: number): void => {
    for (const unit of units.values()) {
      const extra = unit.dead.slice(Math.max(0, keep));
      for (const d of extra) remove(d.id);
      unit.dead = unit.dead.slice(0, Math.max(0, keep));
    }
  };
  if (policy.maxPerPodContainer >= 0) keepNewest(policy.maxPerPodContainer);
  const total = (): number => [...units.values()].reduce((n, u) => n + u.dead.length, 0);
  if (policy.maxContainers >= 0 && total() > policy.maxContainers && units.size > 0) {
    keepNewest(Math.max(1, Math.floor(policy.maxContainers / units.size)));
    if (total() > policy.maxContainers) {
      const flat = [...units.values()].flatMap((u) => u.dead).sort((a, b) => b.createdAt - a.createdAt);
      for (const d of flat.slice(policy.maxContainers)) remove(d.id);
    }
  }
  // One failure does not stop the others; every container is gone (or failed) before sandboxes are looked at.
  await forEachBounded(doomed, limit, async (id) => {
    try {
      await deps.removeContainer(id);
    } catch (err) {
      logger.warn('Failed to remove container', { containerID: id, err: errorMessage(err) });
    }
  });

  // ---- sandboxes
  const [remaining, sandboxes] = await Promise.all([runtimeService.listContainers({}), runtimeService.listPodSandbox({})]);
  const withContainers = new Set(remaining.containers.map((c) => c.podSandboxId));
  const byPod = new Map<string, Array<{ id: string; createdAt: number; active: boolean }>>();
  for (const s of sandboxes.items) {
    const info = decodeSandboxLabels(s.labels);
    if (info.podUID === '') continue;
    const list = byPod.get(info.podUID) ?? [];
    // Ready sandboxes and sandboxes that still have containers are never removed.
    list.push({ id: s.id, createdAt: nsToMs(s.createdAt), active: s.state === 'SANDBOX_READY' || withContainers.has(s.id) });
    byPod.set(info.podUID, list);
  }
  const doomedSandboxes: string[] = [];
  for (const [uid, list] of byPod) {
    list.sort((a, b) => b.createdAt - a.createdAt);
    // A live pod keeps its newest sandbox; a deleted pod keeps none.
    const candidates = deps.isPodDeleted(uid) ? list : list.slice(1);
    for (const s of candidates) if (!s.active) doomedSandboxes.push(s.id);
  }
  await forEachBounded(doomedSandboxes, limit, async (id) => {
    try {
      // Normally already stopped by KillPod; stop again in case it was not.
      await runtimeService.stopPodSandbox({ podSandboxId: id }, { ignoreNotFound: true });
      await runtimeService.removePodSandbox({ podSandboxId: id }, { ignoreNotFound: true });
    } catch (err) {
      logger.warn('Failed to remove sandbox', { podSandboxID: id, err: errorMessage(err) });
    }
  });

  // ---- pod log directories
  if (deps.allSourcesReady) {
    let entries: string[];
    try {
      entries = await readdir(deps.podLogsDir);
    } catch {
      entries = [];
    }
    for (const entry of entries) {
      const parts = entry.split('_');
      const uid = parts[parts.length - 1];
      if (parts.length !== 3 || uid === undefined || uid === '' || !deps.isPodDeleted(uid)) continue;
      await rm(path.join(deps.podLogsDir, entry), { recursive: true, force: true }).catch((err: unknown) =>
        logger.warn('Failed to remove pod logs directory', { path: entry, err: errorMessage(err) }),
      );
    }
  }

  // ---- dangling container log symlinks (every time, as upstream)
  if (deps.containerLogsDir !== undefined) {
    await removeDeadLogSymlinks({ containerLogsDir: deps.containerLogsDir, runtimeService, logger });
  }
}

export type PodGcDeps = Pick<GcDeps, 'runtimeService' | 'logger' | 'removeContainer'>;

/**
 * The garbage of one pod that is gone for good, removed at once (containerGC would remove the same
 * at its next pass): the exited containers of its last status, then — once none is left — its stopped
 * sandboxes. Each pod as it stops, so a mass deletion is removed as fast as pods stop, not in GC
 * batches; no list calls (a mass deletion is when the runtime is busiest).
 */
export async function collectPodGarbage(deps: PodGcDeps, status: RuntimePodStatus): Promise<void> {
  const { runtimeService, logger } = deps;
  const uid = status.uid;
  const running = status.containers.filter((c) => c.state === 'running');
  const removals = await Promise.allSettled(status.containers.filter((c) => c.state !== 'running').map((c) => deps.removeContainer(c.id)));
  const failed = removals.filter((r) => r.status === 'rejected');
  for (const r of failed) logger.warn('Failed to remove container', { podUID: uid, err: errorMessage(r.reason) });
  // A sandbox with containers left (running, or not removed) stays for the container GC.
  if (running.length > 0 || failed.length > 0) return;
  for (const sandbox of status.sandboxes) {
    if (sandbox.state === 'ready') continue;
    try {
      await runtimeService.removePodSandbox({ podSandboxId: sandbox.id }, { ignoreNotFound: true });
    } catch (err) {
      logger.warn('Failed to remove sandbox', { podUID: uid, podSandboxID: sandbox.id, err: errorMessage(err) });
    }
  }
}
