import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PodLifecycle } from '@kubelet-ts/pod-lifecycle';
import type { PodConfig } from '@kubelet-ts/pod-sources';

/**
 * Feeds the merged source updates to the lifecycle core and marks the sources ready once each
 * has delivered its first snapshot (orphans are only killed after that). Bad manifests are
 * logged by the sources themselves, with file, field and reason.
 */
export function connectSources(podConfig: PodConfig, lifecycle: PodLifecycle, logger: Logger): Promise<void> {
  podConfig.allSourcesSeen.then(
    () => lifecycle.setSourcesReady(),
    () => undefined,
  );
  return (async () => {
    for await (const update of podConfig.updates) lifecycle.handlePodUpdate(update);
  })().catch((err: unknown) => logger.error('Pod source stream failed', { err: errorMessage(err) }));
}

/** Closes what is open, in reverse order of opening, never throwing. */
export async function closeAll(logger: Logger, closers: Array<(() => Promise<void> | void) | undefined>): Promise<void> {
  for (const close of closers.reverse()) {
    if (close === undefined) continue;
    try {
      await close();
    } catch (err) {
      logger.warn('Error while shutting down', { err: errorMessage(err) });
    }
  }
}
