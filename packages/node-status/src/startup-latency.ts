// Upstream NodeStartupLatencyTracker (pkg/kubelet/util/node_startup_latency_tracker.go) and its five gauges.
import type { Clock, Metrics } from '@kubelet-ts/common';
import { noopMetrics } from '@kubelet-ts/common';

/** Upstream NodeStartupLatencyTracker: the moments of a node's start, each recorded the first time only. */
export interface NodeStartupLatencyTracker {
  /** The first registration attempt (upstream registerWithAPIServer, before its loop). */
  recordAttemptRegisterNode(): void;
  /** The Node object created (not found existing): sets the pre-kubelet, pre-registration and registration durations. */
  recordRegisteredNewNode(): void;
  /** A status patch the API server answered with Ready=True: sets the post-registration and total durations. */
  recordNodeReady(): void;
}

export interface NodeStartupLatencyTrackerOptions {
  clock: Clock;
  /** kubelet_node_startup_*_duration_seconds. Default: none. */
  metrics?: Metrics;
  /** When the machine booted (ms since the epoch); undefined: unknown, and the two durations from boot are not set (as upstream). */
  bootTimeMs?: number;
  /** When the kubelet started (ms since the epoch); default: now (upstream: the tracker's creation). */
  kubeletStartMs?: number;
}

/**
 * Upstream's node startup latency tracker: how long the machine took to start the kubelet, the kubelet
 * to try to register, the registration, and the node to be reported Ready after it. Only a node this
 * kubelet created counts: after a restart against an existing Node nothing after the attempt is set.
 */
export function createNodeStartupLatencyTracker(options: NodeStartupLatencyTrackerOptions): NodeStartupLatencyTracker {
  const { clock, bootTimeMs } = options;
  const metrics = options.metrics ?? noopMetrics;
  const kubeletStart = options.kubeletStartMs ?? clock.now();
  const preKubelet = metrics.gauge({
    name: 'kubelet_node_startup_pre_kubelet_duration_seconds',
    help: 'Duration in seconds of node startup before kubelet starts.',
  });
  const preRegistration = metrics.gauge({
    name: 'kubelet_node_startup_pre_registration_duration_seconds',
    help: 'Duration in seconds of node startup before registration.',
  });
  const registration = metrics.gauge({
    name: 'kubelet_node_startup_registration_duration_seconds',
    help: 'Duration in seconds of node startup during registration.',
  });
  const postRegistration = metrics.gauge({
    name: 'kubelet_node_startup_post_registration_duration_seconds',
    help: 'Duration in seconds of node startup after registration.',
  });
  const total = metrics.gauge({ name: 'kubelet_node_startup_duration_seconds', help: 'Duration in seconds of node startup in total.' });
  let attemptedAt: number | undefined;
  let registeredAt: number | undefined;
  let readyAt: number | undefined;
  const seconds = (fromMs: number, toMs: number): number => (toMs - fromMs) / 1000;
  return {
    recordAttemptRegisterNode() {
      attemptedAt ??= clock.now();
    },
    recordRegisteredNewNode() {
      if (attemptedAt === undefined || registeredAt !== undefined) return;
      registeredAt = clock.now();
      if (bootTimeMs !== undefined) preKubelet.set(seconds(bootTimeMs, kubeletStart));
      preRegistration.set(seconds(kubeletStart, attemptedAt));
      registration.set(seconds(attemptedAt, registeredAt));
    },
    recordNodeReady() {
      if (registeredAt === undefined || readyAt !== undefined) return;
      readyAt = clock.now();
      postRegistration.set(seconds(registeredAt, readyAt));
      if (bootTimeMs !== undefined) total.set(seconds(bootTimeMs, readyAt));
    },
  };
}
