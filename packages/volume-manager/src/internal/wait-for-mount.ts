import type { Pod } from '@kubelet-ts/api';
import { VolumeError } from '../errors.js';
import type { VolumeContext, VolumeState } from './context.js';
import { mountPodVolumes } from './mount-volumes.js';
import { adoptReconstructed, reconstruct } from './reconstruct.js';

/**
 * Upstream WaitForAttachAndMount, with the desired state populator's part: adds the pod to the
 * desired state, then sets its volumes up (retrying with back-off) until all are, the timeout or
 * the signal.
 */
export async function waitForAttachAndMount(ctx: VolumeContext, state: VolumeState, pod: Pod, signal?: AbortSignal): Promise<void> {
  const { backoff, clock } = ctx;
  await reconstruct(ctx, state);
  const uid = pod.metadata.uid;
  state.desired.set(uid, pod);
  await state.withPodLock(uid, () => adoptReconstructed(ctx, state, pod));
  const deadline = clock.now() + ctx.waitTimeoutMs;
  let force = true;
  for (;;) {
    if (signal?.aborted)
      throw new VolumeError('ABORTED', `waiting for volumes of pod ${pod.metadata.name} aborted`, { cause: signal.reason });
    const failures = await state.withPodLock(uid, () => mountPodVolumes(ctx, state, pod, force));
    force = false;
    if (failures.size === 0) return;
    const remaining = deadline - clock.now();
    if (remaining <= 0) throw new VolumeError('SETUP_FAILED', [...failures.values()].join('; '));
    const waits = [...failures.keys()].map((name) => Math.max(1, backoff.get(`${uid}/${name}`)));
    try {
      await clock.sleep(Math.min(remaining, ...waits), signal);
    } catch (err) {
      throw new VolumeError('ABORTED', `waiting for volumes of pod ${pod.metadata.name} aborted: ${[...failures.values()].join('; ')}`, {
        cause: err,
      });
    }
  }
}
