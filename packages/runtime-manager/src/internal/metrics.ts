import type { Counter, Metrics } from '@kubelet-ts/common';

/** Upstream's `container_type` label values (metrics.Container, metrics.InitContainer, metrics.EphemeralContainer). */
export type StartedContainerType = 'container' | 'init_container' | 'ephemeral_container';

/** Upstream's started pods and containers counters, as kuberuntime's SyncPod records them, and the sleep hooks cut short. */
export interface StartMetrics {
  /** kubelet_started_pods_total: sandboxes the kubelet tried to create. */
  readonly pods: Counter;
  /** kubelet_started_pods_errors_total: sandboxes that could not be created. */
  readonly podErrors: Counter;
  /** kubelet_started_containers_total: containers the kubelet tried to start (not those in CrashLoopBackOff). */
  readonly containers: Counter<'container_type'>;
  /** kubelet_started_containers_errors_total: by the start's error code (ErrImagePull, CreateContainerError…). */
  readonly containerErrors: Counter<'container_type' | 'code'>;
  /** kubelet_sleep_action_terminated_early_total: sleep hooks cut short. */
  readonly sleepTerminatedEarly: Counter;
}

export function startMetrics(metrics: Metrics): StartMetrics {
  return {
    pods: metrics.counter({ name: 'kubelet_started_pods_total', help: 'Cumulative number of pods started' }),
    podErrors: metrics.counter({
      name: 'kubelet_started_pods_errors_total',
      help: 'Cumulative number of errors when starting pods',
    }),
    containers: metrics.counter<'container_type'>({
      name: 'kubelet_started_containers_total',
      help: 'Cumulative number of containers started',
      labelNames: ['container_type'],
    }),
    containerErrors: metrics.counter<'container_type' | 'code'>({
      name: 'kubelet_started_containers_errors_total',
      help: 'Cumulative number of errors when starting containers',
      labelNames: ['container_type', 'code'],
    }),
    sleepTerminatedEarly: metrics.counter({
      name: 'kubelet_sleep_action_terminated_early_total',
      help: 'The number of times lifecycle sleep handler got terminated before it finishes',
    }),
  };
}
