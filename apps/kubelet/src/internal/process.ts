import { setMaxListeners } from 'node:events';
import { promises as fs } from 'node:fs';
import type { Logger } from '@kubelet-ts/common';

/**
 * Sets the kubelet's own oom_score_adj (upstream: -999). Where the process lacks
 * CAP_SYS_RESOURCE a negative value is refused (EACCES): warn and go on, as the machine allows.
 */
export async function applyOomScoreAdj(value: number, logger: Logger, file = '/proc/self/oom_score_adj'): Promise<boolean> {
  try {
    await fs.writeFile(file, `${value}\n`);
    return true;
  } catch (err) {
    logger.warn('Failed to set the kubelet oom_score_adj; continuing', { oomScoreAdj: value, err });
    return false;
  }
}

/**
 * Resolves when SIGTERM or SIGINT arrives (aborting the returned controller). The kubelet
 * stops its loops and servers; pods keep running, as with the upstream kubelet.
 */
export function abortOnSignals(logger: Logger, signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): AbortController {
  const controller = new AbortController();
  // Every subsystem, informer and sleep listens on it: many listeners are expected, not a leak.
  setMaxListeners(0, controller.signal);
  for (const signal of signals) {
    process.once(signal, () => {
      logger.info('Received signal, shutting down the kubelet (pods keep running)', { signal });
      controller.abort(new Error(`received ${signal}`));
    });
  }
  return controller;
}

/**
 * Awaits a step of start-up that a signal can cut short (the TLS bootstrap waits for its CSR's
 * approval): stopped by the signal, the process exits 0 with a log line instead of an unhandled
 * rejection; any other failure propagates.
 */
export async function unlessStopped<T>(
  step: Promise<T>,
  signal: AbortSignal,
  logger: Logger,
  exit: (code: number) => never = process.exit,
): Promise<T> {
  try {
    return await step;
  } catch (err) {
    if (!signal.aborted) throw err;
    logger.info('kubelet-ts stopped before it started', {
      reason: signal.reason instanceof Error ? signal.reason.message : String(signal.reason),
    });
    return exit(0);
  }
}
