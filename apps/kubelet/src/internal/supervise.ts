import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';

/** A long-running subsystem: runs until the signal aborts, and resolves once it stopped. */
export interface Runnable {
  run(signal: AbortSignal): Promise<void>;
}

export interface SuperviseOptions {
  clock: Clock;
  logger: Logger;
  /** Resolves once the runnable may start (e.g. every pod source was seen); rejects when the signal aborts. */
  after?: (signal: AbortSignal) => Promise<void>;
  /** Started again this long after it failed; without it a failure is logged and the runnable stays stopped. */
  restartMs?: number;
  /** What a stop means for the node, added to the error line ("CSI drivers will not register"). */
  consequence?: string;
}

/**
 * Runs a subsystem the one way the kubelet runs them all: after its precondition, until the signal
 * aborts, never rejecting. A failure is logged as `<name> stopped[; consequence]`, or, with
 * `restartMs`, as `<name> failed; restarting it` and the runnable is started again.
 */
export async function supervise(name: string, runnable: Runnable, signal: AbortSignal, options: SuperviseOptions): Promise<void> {
  const { clock, logger } = options;
  try {
    await options.after?.(signal);
  } catch {
    return;
  }
  while (!signal.aborted) {
    try {
      await runnable.run(signal);
      return;
    } catch (err) {
      if (signal.aborted) return;
      if (options.restartMs === undefined) {
        logger.error(`${name} stopped${options.consequence !== undefined ? `; ${options.consequence}` : ''}`, { err: errorMessage(err) });
        return;
      }
      logger.error(`${name} failed; restarting it`, { err: errorMessage(err), retryAfterMs: options.restartMs });
      await clock.sleep(options.restartMs, signal).catch(() => undefined);
    }
  }
}

/** Resolves once `ready()` holds, checking every `everyMs`; rejects when the signal aborts. */
export async function until(ready: () => boolean, clock: Clock, signal: AbortSignal, everyMs = 500): Promise<void> {
  while (!ready()) {
    if (signal.aborted) throw signal.reason;
    await clock.sleep(everyMs, signal);
  }
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
