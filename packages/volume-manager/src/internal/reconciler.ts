import { errorMessage } from '@kubelet-ts/common';
import type { VolumeContext, VolumeState } from './context.js';
import { podLog } from './context.js';
import { mountPodVolumes } from './mount-volumes.js';
import { reconstruct } from './reconstruct.js';
import { teardownPod } from './teardown.js';

/**
 * Upstream reconciler.Run: every reconcile period, the mount pass for each desired pod (content
 * volumes re-synced when due) and the retries of failed teardowns; closes the CSI clients once stopped.
 */
export async function runReconciler(ctx: VolumeContext, state: VolumeState, signal: AbortSignal): Promise<void> {
  await reconstruct(ctx, state);
  while (!signal.aborted) {
    for (const pod of [...state.desired.values()]) {
      if (signal.aborted) break;
      try {
        await state.withPodLock(pod.metadata.uid, () => mountPodVolumes(ctx, state, pod, false));
      } catch (err) {
        podLog(ctx, pod).error('Reconciler failed', { err: errorMessage(err) });
      }
    }
    for (const [uid, failedAt] of [...state.teardownRetry]) {
      if (signal.aborted || state.desired.has(uid) || ctx.backoff.isInBackoffSince(`teardown/${uid}`, failedAt)) continue;
      await teardownPod(ctx, state, uid).catch((err: unknown) =>
        ctx.logger.warn('Volume teardown failed, will retry', { podUID: uid, err: errorMessage(err) }),
      );
    }
    await ctx.clock.sleep(ctx.reconcilePeriodMs, signal).catch(() => undefined);
  }
  ctx.plugins.closeClients();
}
