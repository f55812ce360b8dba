import { errorMessage } from '@kubelet-ts/common';
import { fsStatsFromStatfs } from '../node-stats.js';
import type { FsStats, PodStats, Summary } from '../types.js';
import { iso } from './figures.js';
import { imageFsStats } from './image-fs.js';
import { nodeStats } from './node-summary.js';
import { podStats } from './pod-summary.js';
import { EMPTY_SNAPSHOT, runtimeSnapshot } from './runtime-snapshot.js';
import type { Collection, FsInfoFn, SummaryContext } from './summary-context.js';

/** Collections of a subset of pods a left-out pod's CPU samples survive (30 × the 10 s eviction check). */
const SUBSET_SWEEP_GRACE_ROUNDS = 30;

/** statfs by path, each path once per collection; a failure is logged and stands as undefined. */
function fsInfoOnce(ctx: SummaryContext, time: string): FsInfoFn {
  const cache = new Map<string, Promise<FsStats | undefined>>();
  return (path) => {
    let p = cache.get(path);
    if (p === undefined) {
      p = ctx.paths.fs.statfs(path).then(
        (info) => fsStatsFromStatfs(info, time),
        (err: unknown) => {
          ctx.logger.debug('Failed to statfs a filesystem', { path, err: errorMessage(err) });
          return undefined;
        },
      );
      cache.set(path, p);
    }
    return p;
  };
}

/** Collects the node's figures and those of every pod, or of the pods in `only` (upstream ListPodStats + the node's). */
export async function collectSummary(ctx: SummaryContext, only?: ReadonlySet<string>): Promise<Summary> {
  const nowMs = ctx.clock.now();
  const time = iso(nowMs);
  const collection: Collection = { nowMs, time, fsInfo: fsInfoOnce(ctx, time) };

  const [node, allPods] = await Promise.all([nodeStats(ctx, collection), Promise.resolve(ctx.getPods())]);
  const pods = only === undefined ? allPods : allPods.filter((p) => only.has(p.metadata.uid));
  // Without pods to measure, the runtime's lists are not needed.
  const snapshot = only !== undefined && pods.length === 0 ? EMPTY_SNAPSHOT : await runtimeSnapshot(ctx);
  const podCollection = { ...collection, rootFs: node.fs };
  // Pods are measured concurrently (each reads a handful of files); the order of getPods is kept.
  const measured = await Promise.all(pods.map((pod) => podStats(ctx, podCollection, pod, snapshot)));
  const podStatsList = measured.filter((p): p is PodStats => p !== undefined);
  node.runtime = await imageFsStats(ctx, collection);
  if (only === undefined) {
    ctx.rates.sweep();
    const liveSandboxes = new Set([...snapshot.sandboxesByUid.values()].flat().map((s) => s.id));
    for (const id of [...ctx.sandboxPids.keys()]) if (!liveSandboxes.has(id)) ctx.sandboxPids.delete(id);
  } else {
    // Pods left out keep their CPU samples until a complete collection (about 5 minutes of 10 s checks).
    ctx.rates.sweep(SUBSET_SWEEP_GRACE_ROUNDS);
  }
  return { node, pods: podStatsList };
}
