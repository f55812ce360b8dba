import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import type { RuntimeState } from '@kubelet-ts/node-status';
import type { Runnable } from './supervise.js';

/**
 * Waits until the container runtime answers Version (upstream fails the kubelet and lets its
 * supervisor restart it; we keep the process up and retry with back-off, logging the endpoint
 * and the reason each time so that operators see at once what is missing).
 */
export async function waitForRuntime(
  runtime: RuntimeService,
  options: { endpoint: string; clock: Clock; logger: Logger; signal: AbortSignal; maxDelayMs?: number },
): Promise<string> {
  let delayMs = 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  for (;;) {
    try {
      const version = await runtime.version({ version: 'v1' }, { timeoutMs: 5_000, signal: options.signal });
      options.logger.info('Container runtime is ready', {
        endpoint: options.endpoint,
        runtimeName: version.runtimeName,
        runtimeVersion: version.runtimeVersion,
        runtimeApiVersion: version.runtimeApiVersion,
      });
      return version.runtimeName;
    } catch (err) {
      if (options.signal.aborted) throw err;
      options.logger.error(`Container runtime is not available at ${options.endpoint}; retrying in ${delayMs / 1000}s`, {
        endpoint: options.endpoint,
        err: errorMessage(err),
      });
      await options.clock.sleep(delayMs, options.signal);
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
  }
}

/** Upstream updateRuntimeUp's period. */
export const RUNTIME_STATUS_PERIOD_MS = 5_000;

/**
 * Upstream `wait.Until(kl.updateRuntimeUp, 5s)`: asks the runtime its Status and hands the
 * RuntimeReady and NetworkReady conditions to the runtime state (what the Ready condition reads).
 * A failed call is logged and leaves the state alone: after 30 s without success the runtime is down.
 */
export function runtimeStatusRunnable(
  runtime: Pick<RuntimeService, 'status'>,
  state: Pick<RuntimeState, 'setRuntimeStatus'>,
  options: { clock: Clock; logger: Logger; periodMs?: number },
): Runnable {
  const periodMs = options.periodMs ?? RUNTIME_STATUS_PERIOD_MS;
  return {
    async run(signal) {
      while (!signal.aborted) {
        try {
          const reply = await runtime.status({}, { timeoutMs: 5_000, signal });
          state.setRuntimeStatus(reply.status?.conditions ?? [], {
            runtimeHandlers: (reply.runtimeHandlers ?? []).map((h) => ({ name: h.name, ...(h.features ? { features: h.features } : {}) })),
            ...(reply.features !== undefined && reply.features !== null ? { features: reply.features } : {}),
          });
        } catch (err) {
          if (signal.aborted) return;
          options.logger.error('Container runtime sanity check failed', { err: errorMessage(err) });
        }
        await options.clock.sleep(periodMs, signal).catch(() => undefined);
      }
    },
  };
}
