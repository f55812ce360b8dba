import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { formatSourceError } from './errors.js';
import { DEFAULT_CHECK_FREQUENCY_MS, DEFAULT_MAX_MANIFEST_BYTES } from './file-source.js';
import { decodePodsBody, urlError } from './internal/decode-pods-body.js';
import type { PodsBodyOrigin } from './internal/decode-pods-body.js';
import { jsonEqual } from './internal/json.js';
import { readBody } from './internal/read-body.js';
import { decodeManifestBytes } from './internal/text.js';
import type { EmitSourceEvent, PodSource, SourceContext, SourceError, StaticPodObjectReference } from './types.js';

/** The subset of the fetch API the HTTP source uses, so tests and callers can inject their own. */
export type FetchFn = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

export interface HttpSourceOptions {
  /** `--manifest-url` / `staticPodURL`. */
  url: string;
  /** `--manifest-url-header` / `staticPodURLHeader`: each header may carry several values. */
  headers?: Record<string, string | string[]>;
  nodeName: string;
  /** Poll period (`httpCheckFrequency`). Default 20 s. */
  checkFrequencyMs?: number;
  /** Per-request timeout; upstream's HTTP client uses 10 s. */
  timeoutMs?: number;
  /** Largest accepted body; upstream maxConfigLength is 10 MB. Default 10 MiB. */
  maxBodyBytes?: number;
  fetch?: FetchFn;
  /** API object references static pods may make (kubelet-ts extension); default: what the pod config mux passes, else none. */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
  clock?: Clock;
  logger?: Logger;
}

/**
 * The static pod HTTP source (upstream pkg/kubelet/config/http.go): polls a URL whose body is a
 * Pod or a PodList (YAML or JSON) and emits the set of pods. A failed request, a non-200 status
 * or an invalid body is reported and the last good set stays in place. An empty body means "no
 * pods". Every pod of a list must be valid, or the whole body is rejected (as upstream).
 */
export function createHttpSource(options: HttpSourceOptions): PodSource {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ source: 'http', url: options.url });
  const checkFrequencyMs = options.checkFrequencyMs ?? DEFAULT_CHECK_FREQUENCY_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  const fetchFn: FetchFn = options.fetch ?? ((url, init) => fetch(url, init));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name] = Array.isArray(value) ? value.join(', ') : value;

  return {
    name: 'http',
    async run(emit: EmitSourceEvent, signal: AbortSignal, context?: SourceContext): Promise<void> {
      if (signal.aborted) return;
      const allowedObjectReferences = options.allowedObjectReferences ?? context?.allowedObjectReferences ?? [];
      let lastBody: string | undefined;
      let lastErrors: SourceError[] = [];
      let polling: Promise<void> | undefined;

      const fail = (errors: SourceError[]): void => {
        // Report each distinct problem once; repeats go to debug so a dead URL does not flood the log.
        if (jsonEqual(errors, lastErrors)) {
          logger.debug('Static pod URL still failing', { err: errors.map(formatSourceError).join('; ') });
          return;
        }
        lastErrors = errors;
        for (const e of errors) logger.error('Failed to read static pods from URL', { err: formatSourceError(e) });
        emit({ kind: 'error', errors });
      };
      const error = (reason: string): SourceError[] => urlError(options.url, reason);
      const origin: PodsBodyOrigin = { url: options.url, nodeName: options.nodeName, allowedObjectReferences };

      const poll = async (): Promise<void> => {
        const controller = new AbortController();
        const onAbort = (): void => controller.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const timer = clock.setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
        let status: number;
        let bytes: Buffer;
        try {
          const response = await fetchFn(options.url, { headers, signal: controller.signal });
          status = response.status;
          bytes = await readBody(response, maxBodyBytes);
          if (status !== 200) {
            fail(error(`unexpected HTTP status ${status}${response.statusText ? ` ${response.statusText}` : ''}`));
            return;
          }
        } catch (err) {
          if (signal.aborted) return;
          fail(error(`request failed: ${errorMessage(controller.signal.aborted ? controller.signal.reason : err)}`));
          return;
        } finally {
          clock.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        }
        if (signal.aborted) return;
        const decoded = decodeManifestBytes(bytes);
        if (!decoded.ok) {
          fail(error(`body is ${decoded.reason}`));
          return;
        }
        const body = decoded.text;
        if (body.trim().length === 0) {
          // Upstream emits an empty set (so the source counts as seen) and logs the empty body.
          logger.warn('Zero-length data received from static pod URL');
          lastBody = body;
          lastErrors = [];
          emit({ kind: 'set', pods: [] });
          return;
        }
        // Unchanged body: nothing to do (upstream short-circuits the same way).
        if (body === lastBody) return;
        const result = decodePodsBody(body, origin);
        if (!result.ok) {
          fail(result.errors);
          return;
        }
        lastBody = body;
        lastErrors = [];
        emit({ kind: 'set', pods: result.pods });
      };

      const tick = (): void => {
        if (polling !== undefined || signal.aborted) return;
        polling = poll()
          .catch((err: unknown) => logger.error('Static pod URL poll failed', { err: errorMessage(err) }))
          .finally(() => {
            polling = undefined;
          });
      };

      const interval = clock.setInterval(tick, checkFrequencyMs);
      tick();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(interval);
      await polling;
    },
  };
}
