import { errorMessage } from '@kubelet-ts/common';
import type { VolumeContext, VolumeState } from './context.js';
import { podLog } from './context.js';
import { mountPodVolumes } from './mount-volumes.js';
import { reconstruct } from './reconstruct.js';
import { teardownPod } from './teardown.js';

/** One pod's mount pass, in turn with the pod's other volume operations. */
async function mountPass(ctx: VolumeContext, state: VolumeState, uid: string): Promise<void> {
  await state.withPodLock(uid, async () => {
    // Queued behind the pod's other operations: by its turn the pod may have gone or changed.
    const pod = state.desired.get(uid);
    if (pod === undefined) return;
    try {
      await mountPodVolumes(ctx, state, pod, false);
    } catch (err) {
      podLog(ctx, pod).error('Reconciler failed', { err: errorMessage(err) });
    }
  });
}

/**
 * Upstream reconciler.Run: every reconcile period, the mount pass for each desired pod (content
 * volumes re-synced when due) and the retries of failed teardowns; closes the CSI clients once stopped.
 *
 * Each pod's pass runs on its own, as upstream's operation executor runs each operation in its own
 * goroutine: a CSI driver that hangs in a call (up to the 2-minute CSI deadline) holds back only the
 * pod that waits for it. A pass still pending for a pod is not started again (upstream
 * nestedpendingoperations: "an operation for the volume is already pending").
 */
export async function runReconciler(ctx: VolumeContext, state: VolumeState, signal: AbortSignal): Promise<void> {
  await reconstruct(ctx, state);
  const pending = new Map<string, Promise<void>>();
  const launch = (key: string, operation: () => Promise<void>): void => {
    if (pending.has(key)) return;
    const settled = operation().finally(() => pending.delete(key));
    pending.set(key, settled);
  };
  while (!signal.aborted) {
    for (const uid of [...state.desired.keys()]) launch(`mount/${uid}`, () => mountPass(ctx, state, uid));
    for (const [uid, failedAt] of [...state.teardownRetry]) {
      if (state.desired.has(uid) || ctx.backoff.isInBackoffSince(`teardown/${uid}`, failedAt)) continue;
      launch(`teardown/${uid}`, () =>
        teardownPod(ctx, state, uid).catch((err: unknown) =>
          ctx.logger.warn('Volume teardown failed, will retry', { podUID: uid, err: errorMessage(err) }),
        ),
      );
    }
    await ctx.clock.sleep(ctx.reconcilePeriodMs, signal).catch(() => undefined);
  }
  await Promise.all(pending.values());
  ctx.plugins.closeClients();
}
