// Upstream kuberuntime/instrumented_services.go: every CRI call counted and timed by operation type.
import type { Clock, Metrics } from '@kubelet-ts/common';
import { noopMetrics, systemClock } from '@kubelet-ts/common';
import type { ImageService, RuntimeService } from './services.js';
import { IMAGE_SERVICE_METHODS, RUNTIME_SERVICE_METHODS, STREAMING_METHODS } from './services.js';

export interface InstrumentOptions {
  metrics?: Metrics;
  clock?: Pick<Clock, 'now'>;
}

/** Upstream's `operation_type` values where they are not the method name in snake case. */
const OPERATION_TYPES: Readonly<Record<string, string>> = {
  updateContainerResources: 'update_container',
  imageFsInfo: 'image_fs_info',
};

/** The `operation_type` of a CRI method: `runPodSandbox` → `run_podsandbox`, `listContainers` → `list_containers`. */
export function criOperationType(method: string): string {
  return (
    OPERATION_TYPES[method] ??
    method
      .replace(/^podSandbox/, 'podsandbox')
      .replace(/PodSandbox/g, 'Podsandbox')
      .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
  );
}

/** kubelet runtime_operations_duration_seconds: metrics.ExponentialBuckets(.005, 2.5, 14). */
export const RUNTIME_OPERATIONS_DURATION_BUCKETS: readonly number[] = Array.from({ length: 14 }, (_, i) => 0.005 * 2.5 ** i);

const STREAMING: ReadonlySet<string> = new Set(STREAMING_METHODS);

function runtimeMetrics(metrics: Metrics) {
  return {
    operations: metrics.counter<'operation_type'>({
      name: 'kubelet_runtime_operations_total',
      help: 'Cumulative number of runtime operations by operation type.',
      labelNames: ['operation_type'],
    }),
    errors: metrics.counter<'operation_type'>({
      name: 'kubelet_runtime_operations_errors_total',
      help: 'Cumulative number of runtime operation errors by operation type.',
      labelNames: ['operation_type'],
    }),
    duration: metrics.histogram<'operation_type'>({
      name: 'kubelet_runtime_operations_duration_seconds',
      help: 'Duration in seconds of runtime operations. Broken down by operation type.',
      labelNames: ['operation_type'],
      buckets: RUNTIME_OPERATIONS_DURATION_BUCKETS,
    }),
    sandboxDuration: metrics.histogram<'runtime_handler'>({
      name: 'kubelet_run_podsandbox_duration_seconds',
      help: 'Duration in seconds of the run_podsandbox operations. Broken down by RuntimeClass.Handler.',
      labelNames: ['runtime_handler'],
    }),
    sandboxErrors: metrics.counter<'runtime_handler'>({
      name: 'kubelet_run_podsandbox_errors_total',
      help: 'Cumulative number of the run_podsandbox operation errors by RuntimeClass.Handler.',
      labelNames: ['runtime_handler'],
    }),
  };
}

function instrument<S extends object>(service: S, methods: readonly string[], options: InstrumentOptions): S {
  const metrics = options.metrics ?? noopMetrics;
  const clock = options.clock ?? systemClock;
  const m = runtimeMetrics(metrics);
  const wrapped: Record<string, unknown> = {};
  const target = service as Record<string, unknown>;
  for (const method of methods) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    const call = (original as (...args: unknown[]) => unknown).bind(service);
    const operation_type = criOperationType(method);
    if (STREAMING.has(method)) {
      // A stream is counted when opened; it lasts as long as its reader, so it is not timed.
      wrapped[method] = (...args: unknown[]) => {
        m.operations.inc({ operation_type });
        return call(...args);
      };
      continue;
    }
    wrapped[method] = async (...args: unknown[]) => {
      const start = clock.now();
      const handler =
        method === 'runPodSandbox' ? String((args[0] as { runtimeHandler?: unknown } | undefined)?.runtimeHandler ?? '') : undefined;
      const record = (failed: boolean): void => {
        const seconds = (clock.now() - start) / 1000;
        m.operations.inc({ operation_type });
        m.duration.observe({ operation_type }, seconds);
        if (failed) m.errors.inc({ operation_type });
        if (handler !== undefined) {
          m.sandboxDuration.observe({ runtime_handler: handler }, seconds);
          if (failed) m.sandboxErrors.inc({ runtime_handler: handler });
        }
      };
      try {
        const result = await call(...args);
        record(false);
        return result;
      } catch (err) {
        record(true);
        throw err;
      }
    };
  }
  // Anything else of the service (fakes' `calls`, `injectError`) stays reachable, called on the service itself
  // (its #private fields are not the proxy's).
  return new Proxy(service, {
    get: (obj, prop) => {
      if (typeof prop === 'string' && prop in wrapped) return wrapped[prop];
      const value: unknown = Reflect.get(obj, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}

/**
 * Upstream newInstrumentedRuntimeService: the same RuntimeService, with `kubelet_runtime_operations_total`,
 * `kubelet_runtime_operations_errors_total` and `kubelet_runtime_operations_duration_seconds` by `operation_type`
 * for every call, and `kubelet_run_podsandbox_duration_seconds` / `kubelet_run_podsandbox_errors_total` by
 * `runtime_handler` for RunPodSandbox.
 */
export function instrumentRuntimeService<S extends Partial<RuntimeService>>(service: S, options: InstrumentOptions = {}): S {
  return instrument(service, RUNTIME_SERVICE_METHODS, options);
}

/** Upstream newInstrumentedImageManagerService: the ImageService with the same runtime operation metrics. */
export function instrumentImageService<S extends Partial<ImageService>>(service: S, options: InstrumentOptions = {}): S {
  return instrument(service, IMAGE_SERVICE_METHODS, options);
}
