import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { ContainerGCPolicy, ContainerRuntime } from '@kubelet-ts/container-runtime';

export interface ContainerGCOptions {
  runtime: Pick<ContainerRuntime, 'garbageCollect'>;
  policy: ContainerGCPolicy;
  sourcesReady: () => boolean;
  /** A pod no source has and whose worker finished: its sandboxes and logs may go too. */
  isPodDeleted: (uid: string) => boolean;
  logger: Logger;
}

/** Upstream containerGC.GarbageCollect, one pass at a time; a pass asked for while one runs follows it. */
export function createContainerGC(o: ContainerGCOptions): () => Promise<void> {
  let running = false;
  let requestedAgain = false;
  return async () => {
    // A pass asked for while one runs is not dropped: pods forgotten meanwhile would otherwise keep
    // their sandboxes until the next GC period (seen when 110 pods were deleted at once).
    if (running) {
      requestedAgain = true;
      return;
    }
    running = true;
    try {
      do {
        requestedAgain = false;
        try {
          await o.runtime.garbageCollect(o.policy, o.sourcesReady(), o.isPodDeleted);
        } catch (err) {
          o.logger.error('Container garbage collection failed', { err: errorMessage(err) });
        }
      } while (requestedAgain);
    } finally {
      running = false;
    }
  };
}
