/**
 * Every metric kubelet-ts libraries record through common's `Metrics`, as they define it (kind, name,
 * labels). `catalog.test.ts` checks it against the sources, so that a new metric cannot skip the
 * promtool check; the promtool test feeds a registry with all of them.
 */
export interface CatalogEntry {
  kind: 'counter' | 'gauge' | 'histogram';
  name: string;
  labelNames: readonly string[];
  /** Upstream's name, which promtool's lint does not like (a counter without `_total`, a unit abbreviated): kept as upstream. */
  upstreamLintException?: string | readonly string[];
}

export const CATALOG: readonly CatalogEntry[] = [
  // admission (critical pod preemption)
  {
    kind: 'counter',
    name: 'kubelet_preemptions',
    labelNames: ['preemption_signal'],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  // cgroup-manager
  { kind: 'histogram', name: 'kubelet_cgroup_manager_duration_seconds', labelNames: ['operation_type'] },
  { kind: 'gauge', name: 'kubelet_cgroup_version', labelNames: [] },
  // certificate-manager
  {
    kind: 'counter',
    name: 'kubelet_certificate_manager_client_expiration_renew_errors',
    labelNames: [],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  {
    kind: 'counter',
    name: 'kubelet_server_expiration_renew_errors',
    labelNames: [],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  // cpu-manager
  { kind: 'counter', name: 'kubelet_cpu_manager_pinning_requests_total', labelNames: [] },
  { kind: 'counter', name: 'kubelet_cpu_manager_pinning_errors_total', labelNames: [] },
  // credential-provider
  { kind: 'histogram', name: 'kubelet_credential_provider_plugin_duration', labelNames: ['plugin_name'] },
  {
    kind: 'counter',
    name: 'kubelet_credential_provider_plugin_errors',
    labelNames: ['plugin_name'],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  // cri-client (instrumented services)
  { kind: 'counter', name: 'kubelet_runtime_operations_total', labelNames: ['operation_type'] },
  { kind: 'counter', name: 'kubelet_runtime_operations_errors_total', labelNames: ['operation_type'] },
  { kind: 'histogram', name: 'kubelet_runtime_operations_duration_seconds', labelNames: ['operation_type'] },
  { kind: 'histogram', name: 'kubelet_run_podsandbox_duration_seconds', labelNames: ['runtime_handler'] },
  { kind: 'counter', name: 'kubelet_run_podsandbox_errors_total', labelNames: ['runtime_handler'] },
  // eviction-manager
  {
    kind: 'counter',
    name: 'kubelet_evictions',
    labelNames: ['eviction_signal'],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  { kind: 'histogram', name: 'kubelet_eviction_stats_age_seconds', labelNames: ['eviction_signal'] },
  // image-gc
  { kind: 'counter', name: 'kubelet_image_garbage_collected_total', labelNames: ['reason'] },
  // kube-client
  { kind: 'counter', name: 'rest_client_requests_total', labelNames: ['code', 'host', 'method'] },
  { kind: 'histogram', name: 'rest_client_request_duration_seconds', labelNames: ['verb', 'host'] },
  { kind: 'histogram', name: 'rest_client_rate_limiter_duration_seconds', labelNames: ['verb', 'host'] },
  // memory-manager
  { kind: 'counter', name: 'kubelet_memory_manager_pinning_requests_total', labelNames: [] },
  { kind: 'counter', name: 'kubelet_memory_manager_pinning_errors_total', labelNames: [] },
  // node-shutdown
  { kind: 'gauge', name: 'kubelet_graceful_shutdown_start_time_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_graceful_shutdown_end_time_seconds', labelNames: [] },
  // node-status
  { kind: 'gauge', name: 'kubelet_node_startup_pre_kubelet_duration_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_node_startup_pre_registration_duration_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_node_startup_registration_duration_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_node_startup_post_registration_duration_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_node_startup_duration_seconds', labelNames: [] },
  // node-status (kubelet-ts extensions)
  { kind: 'counter', name: 'kubelet_ts_node_lease_requests_total', labelNames: ['result'] },
  { kind: 'counter', name: 'kubelet_ts_node_registration_attempts_total', labelNames: ['result'] },
  { kind: 'counter', name: 'kubelet_ts_node_status_updates_total', labelNames: ['result'] },
  // pod-lifecycle
  { kind: 'histogram', name: 'kubelet_pleg_relist_duration_seconds', labelNames: [] },
  { kind: 'histogram', name: 'kubelet_pleg_relist_interval_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_pleg_last_seen_seconds', labelNames: [] },
  {
    kind: 'counter',
    name: 'kubelet_pleg_discard_events',
    labelNames: [],
    upstreamLintException: 'counter metrics should have "_total" suffix',
  },
  // pod-lifecycle (evented PLEG)
  {
    kind: 'counter',
    name: 'kubelet_evented_pleg_connection_error_count',
    labelNames: [],
    upstreamLintException: [
      'counter metrics should have "_total" suffix',
      'non-histogram and non-summary metrics should not have "_count" suffix',
    ],
  },
  {
    kind: 'counter',
    name: 'kubelet_evented_pleg_connection_success_count',
    labelNames: [],
    upstreamLintException: [
      'counter metrics should have "_total" suffix',
      'non-histogram and non-summary metrics should not have "_count" suffix',
    ],
  },
  { kind: 'histogram', name: 'kubelet_evented_pleg_connection_latency_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_running_pods', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_running_containers', labelNames: ['container_state'] },
  { kind: 'gauge', name: 'kubelet_mirror_pods', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_desired_pods', labelNames: ['static'] },
  { kind: 'gauge', name: 'kubelet_active_pods', labelNames: ['static'] },
  { kind: 'gauge', name: 'kubelet_managed_ephemeral_containers', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_working_pods', labelNames: ['lifecycle', 'config', 'static'] },
  { kind: 'counter', name: 'kubelet_orphaned_runtime_pods_total', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_orphan_pod_cleaned_volumes', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_orphan_pod_cleaned_volumes_errors', labelNames: [] },
  { kind: 'counter', name: 'kubelet_restarted_pods_total', labelNames: ['static'] },
  { kind: 'histogram', name: 'kubelet_pod_worker_duration_seconds', labelNames: ['operation_type'] },
  { kind: 'histogram', name: 'kubelet_pod_start_duration_seconds', labelNames: [] },
  { kind: 'histogram', name: 'kubelet_containers_per_pod_count', labelNames: [] },
  { kind: 'histogram', name: 'kubelet_pod_start_sli_duration_seconds', labelNames: [] },
  { kind: 'histogram', name: 'kubelet_pod_start_total_duration_seconds', labelNames: [] },
  { kind: 'gauge', name: 'kubelet_first_network_pod_start_sli_duration_seconds', labelNames: [] },
  // probe-runner (the /metrics/probes registry)
  {
    kind: 'counter',
    name: 'prober_probe_total',
    labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
  },
  { kind: 'histogram', name: 'prober_probe_duration_seconds', labelNames: ['probe_type', 'container', 'pod', 'namespace'] },
  // runtime-manager
  { kind: 'histogram', name: 'kubelet_image_pull_duration_seconds', labelNames: ['image_size_in_bytes'] },
  { kind: 'counter', name: 'kubelet_started_pods_total', labelNames: [] },
  { kind: 'counter', name: 'kubelet_started_pods_errors_total', labelNames: [] },
  { kind: 'counter', name: 'kubelet_started_containers_total', labelNames: ['container_type'] },
  { kind: 'counter', name: 'kubelet_started_containers_errors_total', labelNames: ['container_type', 'code'] },
  { kind: 'counter', name: 'kubelet_sleep_action_terminated_early_total', labelNames: [] },
  // status-manager
  { kind: 'histogram', name: 'kubelet_pod_status_sync_duration_seconds', labelNames: [] },
  // topology-manager
  { kind: 'counter', name: 'kubelet_topology_manager_admission_requests_total', labelNames: [] },
  { kind: 'counter', name: 'kubelet_topology_manager_admission_errors_total', labelNames: [] },
  {
    kind: 'histogram',
    name: 'kubelet_topology_manager_admission_duration_ms',
    labelNames: [],
    upstreamLintException: 'metric names should not contain abbreviated units',
  },
];
