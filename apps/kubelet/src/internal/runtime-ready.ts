import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';

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
