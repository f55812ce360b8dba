/** How a flag's value is parsed (the pflag value type upstream uses). */
export type FlagKind =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'float'
  /** a Kubernetes quantity (`512`, `2Ki`) */
  | 'quantity'
  | 'duration'
  /** comma-separated list; repeated flags append (pflag StringSlice) */
  | 'stringSlice'
  /** `k=v,k2=v2`; repeated flags merge (cliflag MapStringString) */
  | 'map'
  /** `signal<value,...` (cliflag LangleSeparatedMapStringString) */
  | 'langleMap'
  /** `Gate=true,Other=false` (cliflag MapStringBool) */
  | 'mapBool'
  /** `Key:Value,...`; repeated flags add values (cliflag ColonSeparatedMultimapStringString) */
  | 'colonMultimap'
  /** `key=value:Effect,...` */
  | 'taints'
  /** `0:memory=1Gi,hugepages-1M=2Gi`; repeated flags append */
  | 'reservedMemory'
  /** `pattern=N,...` (klog -vmodule) */
  | 'vmodule'
  /** klog verbosity level, an unsigned integer */
  | 'level'
  /** `--version`, `--version=raw`, `--version=false` */
  | 'version';

/** Fields of {@link KubeletFlags} that flags write to. */
export type KubeletFlagField =
  | 'config'
  | 'configDir'
  | 'kubeconfig'
  | 'bootstrapKubeconfig'
  | 'rootDir'
  | 'certDir'
  | 'hostnameOverride'
  | 'nodeIP'
  | 'nodeLabels'
  | 'cloudProvider'
  | 'lockFile'
  | 'exitOnLockContention'
  | 'runtimeCgroups'
  | 'podInfraContainerImage'
  | 'imageCredentialProviderConfig'
  | 'imageCredentialProviderBinDir'
  | 'experimentalMounterPath'
  | 'minimumContainerTTLDuration'
  | 'maxPerPodContainerCount'
  | 'maxContainerCount'
  | 'experimentalAllocatableIgnoreEviction'
  | 'staticObjectDir'
  | 'evictStaticPods'
  | 'maxParallelStarts'
  | 'version'
  | 'help';

export interface FlagSpec {
  /** The long name, without dashes. */
  name: string;
  /** A one-letter shorthand (`v`, `h`). */
  short?: string;
  kind: FlagKind;
  /**
   * Dotted KubeletConfiguration path (`authentication.anonymous.enabled`), a KubeletFlags field, or
   * `noOp`: accepted and type-checked as upstream, kept in `KubeletFlags.noOpFlags` (flags with no
   * effect on a kubelet, such as the cAdvisor flags upstream registers by mistake).
   */
  target: { config: string } | { flag: KubeletFlagField } | { noOp: true };
  /** pflag's deprecation message; set for every config-field flag, as upstream. */
  deprecated?: string;
  usage: string;
}

/** Upstream's deprecation text for every flag that sets a KubeletConfiguration field. */
export const CONFIG_FLAG_DEPRECATION =
  "This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.";

/** Upstream's deprecation text for the cAdvisor flags registered on the kubelet. */
export const CADVISOR_FLAG_DEPRECATION =
  'This is a cadvisor flag that was mistakenly registered with the Kubelet. Due to legacy concerns, it will follow the standard CLI deprecation timeline before being removed.';

const CADVISOR_FLAGS: ReadonlyArray<readonly [string, FlagKind]> = [
  ['application-metrics-count-limit', 'int64'],
  ['boot-id-file', 'string'],
  ['container-hints', 'string'],
  ['containerd', 'string'],
  ['containerd-namespace', 'string'],
  ['enable-load-reader', 'bool'],
  ['event-storage-age-limit', 'string'],
  ['event-storage-event-limit', 'string'],
  ['global-housekeeping-interval', 'duration'],
  ['log-cadvisor-usage', 'bool'],
  ['machine-id-file', 'string'],
  ['storage-driver-buffer-duration', 'duration'],
  ['storage-driver-db', 'string'],
  ['storage-driver-host', 'string'],
  ['storage-driver-password', 'string'],
  ['storage-driver-secure', 'bool'],
  ['storage-driver-table', 'string'],
  ['storage-driver-user', 'string'],
];

const c = (name: string, kind: FlagKind, config: string, usage: string, deprecated: string | null = CONFIG_FLAG_DEPRECATION): FlagSpec =>
  deprecated === null ? { name, kind, target: { config }, usage } : { name, kind, target: { config }, usage, deprecated };
const f = (name: string, kind: FlagKind, flag: KubeletFlagField, usage: string, deprecated?: string): FlagSpec =>
  deprecated === undefined ? { name, kind, target: { flag }, usage } : { name, kind, target: { flag }, usage, deprecated };

/** Command-line-only flags (upstream KubeletFlags, ContainerRuntimeOptions and global flags). */
export const KUBELET_CLI_FLAGS: readonly FlagSpec[] = [
  f('config', 'string', 'config', 'Load the initial KubeletConfiguration from this file. Flags override its values.'),
  f('config-dir', 'string', 'configDir', 'Directory of *.conf drop-ins merged, in lexical order, over --config.'),
  f('kubeconfig', 'string', 'kubeconfig', 'kubeconfig of the API server. Omit it to run in standalone mode.'),
  f('bootstrap-kubeconfig', 'string', 'bootstrapKubeconfig', 'kubeconfig used to obtain a client certificate.'),
  f('root-dir', 'string', 'rootDir', 'Directory for kubelet files (volume mounts, etc).'),
  f('cert-dir', 'string', 'certDir', 'Directory where the TLS certificates are located.'),
  f('hostname-override', 'string', 'hostnameOverride', 'Use this name instead of the hostname.'),
  f('node-ip', 'string', 'nodeIP', 'IP address (or comma-separated dual-stack addresses) of the node.'),
  f('node-labels', 'map', 'nodeLabels', 'Labels to add when registering the node (key=value,...).'),
  f('cloud-provider', 'string', 'cloudProvider', "The provider for cloud services ('' or 'external')."),
  f('lock-file', 'string', 'lockFile', 'The path to a file to use as a lock.'),
  f('exit-on-lock-contention', 'bool', 'exitOnLockContention', 'Exit upon lock-file contention.'),
  f('runtime-cgroups', 'string', 'runtimeCgroups', 'Absolute name of cgroups to create and run the runtime in.'),
  f(
    'pod-infra-container-image',
    'string',
    'podInfraContainerImage',
    'Specified image will not be pruned by the image garbage collector.',
    'will be removed in 1.35. Image garbage collector will get sandbox image information from CRI.',
  ),
  f(
    'image-credential-provider-config',
    'string',
    'imageCredentialProviderConfig',
    'The path to the credential provider plugin config file.',
  ),
  f(
    'image-credential-provider-bin-dir',
    'string',
    'imageCredentialProviderBinDir',
    'The directory of credential provider plugin binaries.',
  ),
  f(
    'experimental-mounter-path',
    'string',
    'experimentalMounterPath',
    'Path of the mounter binary.',
    'will be removed in 1.25 or later. in favor of using CSI.',
  ),
  f(
    'minimum-container-ttl-duration',
    'duration',
    'minimumContainerTTLDuration',
    'Minimum age for a finished container before it is garbage collected.',
    'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  ),
  f(
    'maximum-dead-containers-per-container',
    'int32',
    'maxPerPodContainerCount',
    'Maximum number of old instances to retain per container.',
    'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  ),
  f(
    'maximum-dead-containers',
    'int32',
    'maxContainerCount',
    'Maximum number of old container instances to retain globally.',
    'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  ),
  f(
    'experimental-allocatable-ignore-eviction',
    'bool',
    'experimentalAllocatableIgnoreEviction',
    'Ignore hard eviction thresholds when computing node allocatable.',
    'will be removed in 1.25 or later.',
  ),
  // cAdvisor flags upstream registers by mistake: accepted and type-checked, no effect (as on a CRI node upstream).
  ...CADVISOR_FLAGS.map(([name, kind]): FlagSpec => ({
    name,
    kind,
    target: { noOp: true },
    usage: 'cAdvisor flag: no effect.',
    deprecated: CADVISOR_FLAG_DEPRECATION,
  })),
  // kubelet-ts extensions (no upstream equivalent; see the config README).
  f(
    'static-object-dir',
    'string',
    'staticObjectDir',
    'kubelet-ts: directory of ConfigMap and Secret manifests that static pods may reference (standalone mode).',
  ),
  f(
    'evict-static-pods',
    'bool',
    'evictStaticPods',
    'kubelet-ts: let node-pressure eviction act on static pods that are not critical by priority (upstream never evicts static pods).',
  ),
  f(
    'max-parallel-starts',
    'int32',
    'maxParallelStarts',
    'kubelet-ts: the most pod sandbox creations and container starts in the runtime at once (default: twice the CPU count; 0: unlimited, as upstream).',
  ),
  f('version', 'version', 'version', 'Print version information and quit (--version=raw for more).'),
  { name: 'help', short: 'h', kind: 'bool', target: { flag: 'help' }, usage: 'Help for kubelet.' },
];

/** Flags that set KubeletConfiguration fields (upstream AddKubeletConfigFlags), all but four deprecated. */
export const KUBELET_CONFIG_FLAGS: readonly FlagSpec[] = [
  c('enable-server', 'bool', 'enableServer', "Enable the Kubelet's server."),
  c('fail-swap-on', 'bool', 'failSwapOn', 'Fail to start if swap is enabled on the node.'),
  c('pod-manifest-path', 'string', 'staticPodPath', 'Directory (or file) of static pod manifests.'),
  c('sync-frequency', 'duration', 'syncFrequency', 'Max period between synchronizing running containers and config.'),
  c('file-check-frequency', 'duration', 'fileCheckFrequency', 'Duration between checking config files for new data.'),
  c('http-check-frequency', 'duration', 'httpCheckFrequency', 'Duration between checking http for new data.'),
  c('manifest-url', 'string', 'staticPodURL', 'URL for accessing additional Pod specifications to run.'),
  c('manifest-url-header', 'colonMultimap', 'staticPodURLHeader', "HTTP headers for --manifest-url ('a:hello,b:again'); repeatable."),
  c('address', 'string', 'address', 'The IP address for the Kubelet to serve on.'),
  c('port', 'int32', 'port', 'The port for the Kubelet to serve on.'),
  c('read-only-port', 'int32', 'readOnlyPort', 'The read-only port (no authentication); 0 disables it.'),
  c('container-runtime-endpoint', 'string', 'containerRuntimeEndpoint', 'The endpoint of the container runtime service.'),
  c('image-service-endpoint', 'string', 'imageServiceEndpoint', 'The endpoint of the image service (default: the runtime endpoint).'),
  c('anonymous-auth', 'bool', 'authentication.anonymous.enabled', 'Enable anonymous requests to the Kubelet server.'),
  c('authentication-token-webhook', 'bool', 'authentication.webhook.enabled', 'Use the TokenReview API for bearer tokens.'),
  c(
    'authentication-token-webhook-cache-ttl',
    'duration',
    'authentication.webhook.cacheTTL',
    'Cache duration of webhook authentication responses.',
  ),
  c('client-ca-file', 'string', 'authentication.x509.clientCAFile', 'CA bundle for client certificate authentication.'),
  c('authorization-mode', 'string', 'authorization.mode', 'AlwaysAllow or Webhook.'),
  c(
    'authorization-webhook-cache-authorized-ttl',
    'duration',
    'authorization.webhook.cacheAuthorizedTTL',
    "Cache duration of 'authorized' responses.",
  ),
  c(
    'authorization-webhook-cache-unauthorized-ttl',
    'duration',
    'authorization.webhook.cacheUnauthorizedTTL',
    "Cache duration of 'unauthorized' responses.",
  ),
  c('tls-cert-file', 'string', 'tlsCertFile', 'x509 certificate for HTTPS.'),
  c('tls-private-key-file', 'string', 'tlsPrivateKeyFile', 'x509 private key matching --tls-cert-file.'),
  c('rotate-server-certificates', 'bool', 'serverTLSBootstrap', 'Request and rotate serving certificates from the API server.'),
  c('tls-cipher-suites', 'stringSlice', 'tlsCipherSuites', 'Comma-separated list of cipher suites.'),
  c('tls-min-version', 'string', 'tlsMinVersion', 'Minimum TLS version supported.'),
  c('rotate-certificates', 'bool', 'rotateCertificates', 'Rotate client certificates.'),
  c('registry-qps', 'int32', 'registryPullQPS', 'Limit of registry pulls per second; 0 is unlimited.'),
  c('registry-burst', 'int32', 'registryBurst', 'Maximum size of bursty pulls.'),
  c('event-qps', 'int32', 'eventRecordQPS', 'QPS to limit event creations.'),
  c('event-burst', 'int32', 'eventBurst', 'Maximum size of a burst of event records.'),
  c('enable-debugging-handlers', 'bool', 'enableDebuggingHandlers', 'Enable server endpoints for logs, exec, attach, port-forward.'),
  c('contention-profiling', 'bool', 'enableContentionProfiling', 'Enable block profiling.'),
  c('healthz-port', 'int32', 'healthzPort', 'The port of the localhost healthz endpoint (0 disables it).'),
  c('healthz-bind-address', 'string', 'healthzBindAddress', 'The IP address for the healthz server.'),
  c('oom-score-adj', 'int32', 'oomScoreAdj', 'The oom-score-adj of the kubelet process, in [-1000, 1000].'),
  c('cluster-domain', 'string', 'clusterDomain', 'DNS domain of the cluster.'),
  c('volume-plugin-dir', 'string', 'volumePluginDir', 'Directory of third-party volume plugins.'),
  c('cluster-dns', 'stringSlice', 'clusterDNS', 'Comma-separated list of DNS server IP addresses.'),
  c('streaming-connection-idle-timeout', 'duration', 'streamingConnectionIdleTimeout', 'Idle timeout of streaming connections.'),
  c('node-status-update-frequency', 'duration', 'nodeStatusUpdateFrequency', 'How often the kubelet computes node status.'),
  c('minimum-image-ttl-duration', 'duration', 'imageMinimumGCAge', 'Minimum age for an unused image before it is garbage collected.'),
  c('image-gc-high-threshold', 'int32', 'imageGCHighThresholdPercent', 'Disk usage percent after which image GC always runs.'),
  c('image-gc-low-threshold', 'int32', 'imageGCLowThresholdPercent', 'Disk usage percent image GC frees down to.'),
  c('volume-stats-agg-period', 'duration', 'volumeStatsAggPeriod', 'Interval of volume disk usage calculation.'),
  c('feature-gates', 'mapBool', 'featureGates', 'Feature gates (Name=true,Other=false).'),
  c('kubelet-cgroups', 'string', 'kubeletCgroups', 'Absolute name of the cgroup to run the kubelet in.'),
  c('system-cgroups', 'string', 'systemCgroups', 'Absolute name of the cgroup for non-kernel processes.'),
  c('provider-id', 'string', 'providerID', 'Unique identifier of the node in a machine database.', null),
  c('cgroups-per-qos', 'bool', 'cgroupsPerQOS', 'Create the QoS cgroup hierarchy.'),
  c('cgroup-driver', 'string', 'cgroupDriver', "Cgroup driver: 'cgroupfs' or 'systemd'."),
  c('cgroup-root', 'string', 'cgroupRoot', 'Root cgroup for pods.'),
  c('cpu-manager-policy', 'string', 'cpuManagerPolicy', "CPU Manager policy: 'none' or 'static'."),
  c('cpu-manager-policy-options', 'map', 'cpuManagerPolicyOptions', 'CPU Manager policy options (key=value).'),
  c('cpu-manager-reconcile-period', 'duration', 'cpuManagerReconcilePeriod', 'CPU Manager reconciliation period.'),
  c('qos-reserved', 'map', 'qosReserved', 'Resource=percentage reserved at the QoS level.'),
  c('topology-manager-policy', 'string', 'topologyManagerPolicy', 'Topology Manager policy.'),
  c('runtime-request-timeout', 'duration', 'runtimeRequestTimeout', 'Timeout of runtime requests other than pull, logs, exec and attach.'),
  c('hairpin-mode', 'string', 'hairpinMode', 'promiscuous-bridge, hairpin-veth or none.'),
  c('max-pods', 'int32', 'maxPods', 'Number of Pods that can run on this Kubelet.'),
  c('pod-cidr', 'string', 'podCIDR', 'Pod CIDR, standalone mode only.'),
  c('pod-max-pids', 'int64', 'podPidsLimit', 'Maximum number of processes per pod (-1: node allocatable).'),
  c('resolv-conf', 'string', 'resolvConf', 'Resolver configuration file for container DNS.'),
  c('runonce', 'bool', 'runOnce', 'Run once and exit (no longer supported).'),
  c('cpu-cfs-quota', 'bool', 'cpuCFSQuota', 'Enforce CPU CFS quota for containers with CPU limits.'),
  c('cpu-cfs-quota-period', 'duration', 'cpuCFSQuotaPeriod', 'CPU CFS quota period.'),
  c('enable-controller-attach-detach', 'bool', 'enableControllerAttachDetach', 'Let the attach/detach controller manage volumes.'),
  c('make-iptables-util-chains', 'bool', 'makeIPTablesUtilChains', 'Ensure iptables utility chains exist.'),
  c('container-log-max-size', 'string', 'containerLogMaxSize', 'Maximum size of a container log file before rotation.'),
  c('container-log-max-files', 'int32', 'containerLogMaxFiles', 'Maximum number of container log files (>= 2).'),
  c('allowed-unsafe-sysctls', 'stringSlice', 'allowedUnsafeSysctls', 'Allowed unsafe sysctls or patterns.'),
  c('node-status-max-images', 'int32', 'nodeStatusMaxImages', 'Maximum number of images in Node.Status.Images (-1: no cap).'),
  c('kernel-memcg-notification', 'bool', 'kernelMemcgNotification', 'Use kernel memcg notifications for memory eviction.'),
  c('local-storage-capacity-isolation', 'bool', 'localStorageCapacityIsolation', 'Enable local ephemeral storage isolation.'),
  c('max-open-files', 'int64', 'maxOpenFiles', 'Number of files the kubelet process can open.'),
  c('kube-api-content-type', 'string', 'contentType', 'Content type of requests to the API server.'),
  c('kube-api-qps', 'int32', 'kubeAPIQPS', 'QPS towards the API server.'),
  c('kube-api-burst', 'int32', 'kubeAPIBurst', 'Burst towards the API server.'),
  c('serialize-image-pulls', 'bool', 'serializeImagePulls', 'Pull images one at a time.'),
  c('eviction-hard', 'langleMap', 'evictionHard', 'Hard eviction thresholds (memory.available<1Gi,...).'),
  c('eviction-soft', 'langleMap', 'evictionSoft', 'Soft eviction thresholds (memory.available<1.5Gi,...).'),
  c('eviction-soft-grace-period', 'map', 'evictionSoftGracePeriod', 'Soft eviction grace periods (memory.available=1m30s,...).'),
  c(
    'eviction-pressure-transition-period',
    'duration',
    'evictionPressureTransitionPeriod',
    'Wait before leaving an eviction pressure condition.',
  ),
  c('eviction-max-pod-grace-period', 'int32', 'evictionMaxPodGracePeriod', 'Maximum grace period (s) for soft evictions.'),
  c('eviction-minimum-reclaim', 'map', 'evictionMinimumReclaim', 'Minimum reclaims (imagefs.available=2Gi,...).'),
  c('pods-per-core', 'int32', 'podsPerCore', 'Number of Pods per core (0: no limit).'),
  c('protect-kernel-defaults', 'bool', 'protectKernelDefaults', 'Fail if kernel tunables differ from kubelet defaults.'),
  c('reserved-cpus', 'string', 'reservedSystemCPUs', 'CPUs reserved for system and kubernetes usage.'),
  c('topology-manager-scope', 'string', 'topologyManagerScope', "Topology Manager scope: 'container' or 'pod'."),
  c('topology-manager-policy-options', 'map', 'topologyManagerPolicyOptions', 'Topology Manager policy options (key=value).'),
  c('system-reserved', 'map', 'systemReserved', 'Resources reserved for non-kubernetes components (cpu=200m,memory=500Mi).'),
  c('kube-reserved', 'map', 'kubeReserved', 'Resources reserved for kubernetes components (cpu=200m,memory=500Mi).'),
  c(
    'enforce-node-allocatable',
    'stringSlice',
    'enforceNodeAllocatable',
    'Node allocatable enforcement levels (none, pods, system-reserved, kube-reserved).',
  ),
  c('system-reserved-cgroup', 'string', 'systemReservedCgroup', 'Top-level cgroup for --system-reserved.'),
  c('kube-reserved-cgroup', 'string', 'kubeReservedCgroup', 'Top-level cgroup for --kube-reserved.'),
  c('memory-manager-policy', 'string', 'memoryManagerPolicy', "Memory Manager policy: 'None' or 'Static'."),
  c('reserved-memory', 'reservedMemory', 'reservedMemory', 'Memory reservations per NUMA node (0:memory=1Gi); repeatable.'),
  c('register-node', 'bool', 'registerNode', 'Register the node with the API server.'),
  c('register-with-taints', 'taints', 'registerWithTaints', 'Taints to register the node with (key=value:Effect,...).'),
  c('seccomp-default', 'bool', 'seccompDefault', 'Use RuntimeDefault as the default seccomp profile.', null),
  c('fail-cgroupv1', 'bool', 'failCgroupV1', 'Prevent the kubelet from starting on a host using cgroup v1.', null),
  c('log-text-split-stream', 'bool', 'logging.options.text.splitStream', '[Alpha] In text format, errors to stderr and info to stdout.'),
  c(
    'log-text-info-buffer-size',
    'quantity',
    'logging.options.text.infoBufferSize',
    '[Alpha] Info messages buffer size with split streams.',
  ),
  c('log-json-split-stream', 'bool', 'logging.options.json.splitStream', '[Alpha] In JSON format, errors to stderr and info to stdout.'),
  c(
    'log-json-info-buffer-size',
    'quantity',
    'logging.options.json.infoBufferSize',
    '[Alpha] Info messages buffer size with split streams.',
  ),
  // cAdvisor's housekeeping interval, which kubelet-ts' statsHousekeepingInterval is (not deprecated upstream).
  c('housekeeping-interval', 'duration', 'statsHousekeepingInterval', 'Interval between container housekeepings (stats cache).', null),
  // logsapi.AddFlags: kept, not deprecated
  { name: 'v', short: 'v', kind: 'level', target: { config: 'logging.verbosity' }, usage: 'Log verbosity level.' },
  c('vmodule', 'vmodule', 'logging.vmodule', 'Per-file verbosity (pattern=N,...).', null),
  c('log-flush-frequency', 'duration', 'logging.flushFrequency', 'Maximum seconds between log flushes.', null),
  c('logging-format', 'string', 'logging.format', 'Log format: text or json.'),
];

/** Every flag the kubelet accepts. */
export const KUBELET_FLAGS: readonly FlagSpec[] = [...KUBELET_CLI_FLAGS, ...KUBELET_CONFIG_FLAGS];
