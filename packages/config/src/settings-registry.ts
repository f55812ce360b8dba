/**
 * What kubelet-ts does with every KubeletConfiguration field and every command-line flag that is not
 * one, so that no setting is silently ignored. `implemented`: code in apps/kubelet or a package acts on
 * it. `refused`: not done yet; any value other than upstream's default is an error at load (at the
 * default the behaviour is upstream's, or as close as the note says). `no-op`: upstream does nothing
 * with it either (deprecated, removed, or dead under the only policy kubelet-ts has).
 * docs/configuration.md is generated from this table (scripts/config-docs.mjs).
 */

import { parseDuration } from './duration.js';
import { KUBELET_CLI_FLAGS } from './flag-table.js';

export type SettingStatus = 'implemented' | 'refused' | 'no-op';

export interface SettingSpec {
  /** A dotted KubeletConfiguration path (`authentication.webhook.enabled`) or a flag (`--lock-file`). */
  name: string;
  status: SettingStatus;
  note: string;
  /**
   * For a refused setting: values that behave as the default does here (`makeIPTablesUtilChains: false`,
   * which is what kubelet-ts does). For an implemented one: `unsupported` gives the reason a value is not.
   */
  accepts?: (value: unknown) => boolean;
  /** For an implemented setting only partly done: why this value is refused, or undefined when it is supported. */
  unsupported?: (value: unknown) => string | undefined;
}

const impl = (name: string, note = ''): SettingSpec => ({ name, status: 'implemented', note });
const refused = (name: string, note: string, accepts?: (value: unknown) => boolean): SettingSpec =>
  accepts === undefined ? { name, status: 'refused', note } : { name, status: 'refused', note, accepts };
const noop = (name: string, note: string): SettingSpec => ({ name, status: 'no-op', note });

const isFalse = (v: unknown): boolean => v === false;
const isZeroQuantity = (v: unknown): boolean => v === undefined || (typeof v === 'string' && /^[+]?0+(\.0*)?([a-zA-Z]*)$/.test(v));

// enforceNodeAllocatable: only `pods` (kubepods gets node allocatable) and `none` are done.
const UNSUPPORTED_ENFORCEMENT = ['system-reserved', 'system-reserved-compressible', 'kube-reserved', 'kube-reserved-compressible'];

/** Every KubeletConfiguration field (v1beta1 of upstream 1.34, plus the kubelet-ts extensions). */
export const CONFIG_FIELD_SETTINGS: readonly SettingSpec[] = [
  impl('enableServer', 'the authenticated server on port 10250 (API mode)'),
  impl('staticPodPath', 'static pods from a directory or file'),
  impl('podLogsDir'),
  impl('syncFrequency'),
  impl('fileCheckFrequency'),
  impl('httpCheckFrequency'),
  impl('staticPodURL'),
  impl('staticPodURLHeader'),
  impl('address'),
  impl('port'),
  impl('readOnlyPort', '/pods, /stats/summary, /metrics and /healthz without authentication'),
  impl('tlsCertFile'),
  impl('tlsPrivateKeyFile'),
  impl('tlsCipherSuites'),
  impl('tlsMinVersion'),
  impl('rotateCertificates', 'client certificate rotation (API mode)'),
  impl('serverTLSBootstrap', 'serving certificate from a CSR (API mode)'),
  impl('authentication.x509.clientCAFile', 'read again when the file changes and every minute; a bad file keeps the last good bundle'),
  impl('authentication.webhook.enabled', 'TokenReview'),
  impl('authentication.webhook.cacheTTL'),
  impl('authentication.anonymous.enabled'),
  impl('authorization.mode', 'Webhook (SubjectAccessReview) or AlwaysAllow'),
  impl('authorization.webhook.cacheAuthorizedTTL'),
  impl('authorization.webhook.cacheUnauthorizedTTL'),
  refused('registryPullQPS', 'image pulls are not rate-limited (upstream limits them to 5/s by default)'),
  refused('registryBurst', 'image pulls are not rate-limited'),
  refused(
    'imagePullCredentialsVerificationPolicy',
    'pulled-image credential verification (KubeletEnsureSecretPulledImages, alpha) is not done',
  ),
  refused('preloadedImagesVerificationAllowlist', 'pulled-image credential verification is not done'),
  impl('eventRecordQPS'),
  impl('eventBurst'),
  impl('enableDebuggingHandlers', 'logs, exec, attach, port-forward, /configz, /runningpods, /debug/pprof, /debug/flags/v'),
  refused('enableContentionProfiling', "Go's block profile; V8 has nothing like it"),
  impl('healthzPort'),
  impl('healthzBindAddress'),
  impl('oomScoreAdj', "the kubelet's own oom_score_adj (a warning where the process may not lower it)"),
  impl('clusterDomain'),
  impl('clusterDNS'),
  refused('streamingConnectionIdleTimeout', 'streaming connections are not closed when idle'),
  impl('nodeStatusUpdateFrequency'),
  impl('nodeStatusReportFrequency'),
  impl('nodeLeaseDurationSeconds'),
  impl('imageMinimumGCAge'),
  impl('imageMaximumGCAge'),
  impl('imageGCHighThresholdPercent'),
  impl('imageGCLowThresholdPercent'),
  impl('volumeStatsAggPeriod'),
  refused('kubeletCgroups', 'the kubelet is not moved into a cgroup of its own'),
  refused('systemCgroups', 'non-kernel processes are not moved into a system cgroup'),
  impl('cgroupRoot'),
  impl('cgroupsPerQOS'),
  impl('cgroupDriver', 'cgroupfs or systemd'),
  impl(
    'cpuManagerPolicy',
    '"none", or "static": exclusive CPUs for Guaranteed containers with whole-CPU requests (not for plain init containers: they run in the shared pool), cpu_manager_state as upstream',
  ),
  refused('singleProcessOOMKill', 'memory.oom.group is left as the runtime sets it'),
  refused('cpuManagerPolicyOptions', 'no static policy options (full-pcpus-only, distribute-cpus-across-numa…)'),
  impl('cpuManagerReconcilePeriod', 'how often the static policy moves running containers to their cpuset'),
  impl(
    'memoryManagerPolicy',
    '"None", or "Static": the memory and huge pages of Guaranteed pods from chosen NUMA nodes (cpuset.mems), a hint provider of the topology manager, memory_manager_state as upstream',
  ),
  impl(
    'topologyManagerPolicy',
    "none, best-effort, restricted or single-numa-node over the CPU and memory managers' NUMA hints (no device manager); refusals are TopologyAffinityError",
  ),
  impl('topologyManagerScope', 'container or pod'),
  refused('topologyManagerPolicyOptions', 'no topology policy options (prefer-closest-numa-nodes, max-allowable-numa-nodes)'),
  refused('qosReserved', 'QoS-level memory reservation (QOSReserved, alpha) is not done'),
  impl('runtimeRequestTimeout'),
  noop('hairpinMode', 'no effect since dockershim was removed: the CNI plugin sets up hairpin'),
  impl('maxPods'),
  refused('podCIDR', 'the pod CIDR is not passed to the runtime (UpdateRuntimeConfig)'),
  impl('podPidsLimit'),
  impl('resolvConf'),
  noop('runOnce', 'removed upstream: true is an error, as upstream'),
  impl('cpuCFSQuota'),
  impl('cpuCFSQuotaPeriod'),
  impl('nodeStatusMaxImages'),
  impl('maxOpenFiles', 'RLIMIT_NOFILE through prlimit(1); a warning where it cannot be set'),
  refused('contentType', 'requests to the API server are JSON', (v) => v === 'application/json'),
  impl('kubeAPIQPS'),
  impl('kubeAPIBurst'),
  impl('serializeImagePulls'),
  impl('maxParallelImagePulls'),
  impl('evictionHard'),
  impl('evictionSoft'),
  impl('evictionSoftGracePeriod'),
  impl('evictionPressureTransitionPeriod'),
  impl('evictionMaxPodGracePeriod'),
  impl('evictionMinimumReclaim'),
  impl('mergeDefaultEvictionSettings'),
  impl('podsPerCore'),
  impl('enableControllerAttachDetach', 'the node annotation volumes.kubernetes.io/controller-managed-attach-detach'),
  impl('protectKernelDefaults', 'kernel tunables checked (true) or set (false) at start'),
  refused(
    'makeIPTablesUtilChains',
    'the iptables utility chains (KUBE-IPTABLES-HINT, KUBE-KUBELET-CANARY) are not created; false, which is what kubelet-ts does, is accepted',
    isFalse,
  ),
  noop('iptablesMasqueradeBit', 'no effect upstream (deprecated)'),
  noop('iptablesDropBit', 'no effect upstream (deprecated)'),
  impl('featureGates', "checked against upstream 1.34's gates; what each gate changes depends on the feature"),
  impl('failSwapOn', 'checked against /proc/swaps at start'),
  refused(
    'memorySwap.swapBehavior',
    'containers get no swap (LimitedSwap is not done); "NoSwap" is the default behaviour',
    (v) => v === 'NoSwap',
  ),
  impl('containerLogMaxSize'),
  impl('containerLogMaxFiles'),
  impl('containerLogMaxWorkers'),
  impl('containerLogMonitorInterval'),
  refused('configMapAndSecretChangeDetectionStrategy', 'ConfigMaps and Secrets are always watched (upstream\'s "Watch")'),
  impl('systemReserved', 'subtracted from node allocatable'),
  impl('kubeReserved', 'subtracted from node allocatable'),
  impl('reservedSystemCPUs', 'the CPUs the static CPU manager policy never gives out exclusively (node allocatable is not changed by it)'),
  refused('showHiddenMetricsForVersion', 'hidden metrics are not served'),
  refused('systemReservedCgroup', 'system-reserved is not enforced on a cgroup'),
  refused('kubeReservedCgroup', 'kube-reserved is not enforced on a cgroup'),
  {
    ...impl('enforceNodeAllocatable', '"pods" and "none"; the system-reserved and kube-reserved enforcements are refused'),
    unsupported: (value) => {
      const bad = Array.isArray(value) ? value.filter((v) => UNSUPPORTED_ENFORCEMENT.includes(String(v))) : [];
      return bad.length === 0
        ? undefined
        : `kubelet-ts does not enforce ${bad.map((v) => JSON.stringify(v)).join(', ')} yet (only "pods" and "none")`;
    },
  },
  impl('allowedUnsafeSysctls'),
  impl(
    'volumePluginDir',
    "checked at start: a FlexVolume driver in it stops the kubelet (kubelet-ts runs none; an empty directory is upstream's behaviour)",
  ),
  impl('providerID'),
  refused('kernelMemcgNotification', 'memory pressure is seen at each eviction check, not through memcg notifications'),
  impl('logging.format', 'text or json'),
  refused('logging.flushFrequency', 'log lines are written as they come', (v) => {
    try {
      return typeof v === 'number' ? v === 5e9 : typeof v === 'string' && parseDuration(v) === 5000;
    } catch {
      return false;
    }
  }),
  impl('logging.verbosity', 'debug records from 4 up; /debug/flags/v changes it while the kubelet runs'),
  refused('logging.vmodule', 'one verbosity for every component'),
  refused('logging.options.text.splitStream', 'one output stream', isFalse),
  refused('logging.options.text.infoBufferSize', 'one output stream, unbuffered', isZeroQuantity),
  refused('logging.options.json.splitStream', 'one output stream', isFalse),
  refused('logging.options.json.infoBufferSize', 'one output stream, unbuffered', isZeroQuantity),
  impl('enableSystemLogHandler', '/logs/ on the authenticated server'),
  refused('enableSystemLogQuery', 'no node log query'),
  impl('shutdownGracePeriod', 'graceful node shutdown: a logind delay inhibitor (held by systemd-inhibit), regular pods first'),
  impl('shutdownGracePeriodCriticalPods', 'the budget of critical pods (priority ≥ 2000000000), killed last'),
  impl('shutdownGracePeriodByPodPriority', 'priority groups killed lowest first (gate GracefulNodeShutdownBasedOnPodPriority)'),
  refused('crashLoopBackOff.maxContainerRestartPeriod', "the restart back-off caps at upstream's 5 minutes"),
  impl(
    'reservedMemory',
    "the Static memory policy's reservation per NUMA node: it must add up to kube- plus system-reserved plus evictionHard memory, as upstream",
  ),
  impl('enableProfilingHandler', '/debug/pprof/ on the authenticated server: a V8 CPU profile and heap snapshot (V8 formats, not pprof)'),
  impl('enableDebugFlagsHandler', '/debug/flags/v on the authenticated server: PUT a verbosity to change the log level while running'),
  impl('seccompDefault', 'RuntimeDefault for containers without a profile'),
  refused('memoryThrottlingFactor', 'no memory.high throttling (MemoryQoS, alpha)'),
  impl('registerWithTaints'),
  impl('registerNode'),
  refused('tracing', 'no OpenTelemetry tracing'),
  impl('localStorageCapacityIsolation', 'ephemeral-storage capacity, requests and eviction'),
  impl('containerRuntimeEndpoint'),
  impl('imageServiceEndpoint'),
  refused('failCgroupV1', 'the cgroup version is not checked at start'),
  refused('userNamespaces.idsPerPod', "pods with user namespaces get the runtime's default mapping size"),
  impl('evictionMonitoringPeriod', "kubelet-ts extension: upstream's fixed 10s"),
  impl('imageGCPeriod', "kubelet-ts extension: upstream's fixed 5m"),
  impl('statsHousekeepingInterval', "kubelet-ts extension: cAdvisor's housekeeping interval (--housekeeping-interval)"),
  impl('containerLogsDir', "kubelet-ts extension: upstream's fixed /var/log/containers"),
];

/** Every command-line flag that is not a KubeletConfiguration field (upstream KubeletFlags and global flags). */
export const CLI_FLAG_SETTINGS: readonly SettingSpec[] = [
  impl('--config'),
  impl('--config-dir'),
  impl('--kubeconfig', 'API mode'),
  impl('--bootstrap-kubeconfig', 'TLS bootstrap'),
  impl('--root-dir'),
  impl('--cert-dir'),
  impl('--hostname-override'),
  impl('--node-ip'),
  impl('--node-labels'),
  refused('--cloud-provider', 'no external cloud provider handshake (the uninitialized taint, provider addresses)'),
  refused('--lock-file', 'no lock file'),
  refused('--exit-on-lock-contention', 'no lock file'),
  refused('--runtime-cgroups', "the runtime's cgroup is not reported in the Summary API"),
  impl('--pod-infra-container-image', 'kept from image GC, as upstream; the runtime chooses the sandbox image'),
  impl('--image-credential-provider-config'),
  impl('--image-credential-provider-bin-dir'),
  refused('--experimental-mounter-path', 'mounts use the mount binary on the PATH'),
  refused('--minimum-container-ttl-duration', "dead containers are removed by upstream's default policy only", (v) => v === '0s'),
  refused('--maximum-dead-containers-per-container', "dead containers are removed by upstream's default policy only", (v) => v === 1),
  refused('--maximum-dead-containers', "dead containers are removed by upstream's default policy only", (v) => v === -1),
  refused('--experimental-allocatable-ignore-eviction', 'node allocatable always subtracts the hard eviction thresholds', isFalse),
  ...KUBELET_CLI_FLAGS.filter((spec) => 'noOp' in spec.target).map((spec) =>
    noop(
      `--${spec.name}`,
      "cAdvisor's, registered on the kubelet by mistake and deprecated upstream (which warns); kubelet-ts has no cAdvisor",
    ),
  ),
  impl('--static-object-dir', 'kubelet-ts extension'),
  impl('--evict-static-pods', 'kubelet-ts extension'),
  impl('--max-parallel-starts', 'kubelet-ts extension'),
  impl('--version'),
  impl('--help'),
];
