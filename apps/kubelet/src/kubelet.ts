/**
 * The kubelet, composed from the @kubelet-ts libraries (upstream NewMainKubelet with its
 * Dependencies, and Kubelet.Run). Wiring only: every behaviour lives in a library or in ./internal.
 */
import { mkdir } from 'node:fs/promises';
import type { NodeResources } from '@kubelet-ts/api';
import { EventReason } from '@kubelet-ts/api';
import type { CgroupManager, ContainerManager } from '@kubelet-ts/cgroup-manager';
import { createContainerManager } from '@kubelet-ts/cgroup-manager';
import type { Clock, EventRecorder, LogFields, Logger, Metrics } from '@kubelet-ts/common';
import { EventType, nodeReference, noopEventRecorder, systemClock } from '@kubelet-ts/common';
import type { VerbositySetter } from '@kubelet-ts/server';
import type { FeatureGates, KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import { durationMs, effectiveMaxParallelStarts, summarizeConfiguration } from '@kubelet-ts/config';
import type { CriClient } from '@kubelet-ts/cri-client';
import { createCriClient } from '@kubelet-ts/cri-client';
import { createPodLifecycle, createPodStartupLatencyTracker, createRuntimeHelper } from '@kubelet-ts/pod-lifecycle';
import type { PodLifecycle, PodStartupLatencyTracker } from '@kubelet-ts/pod-lifecycle';
import type { ContainerRuntime } from '@kubelet-ts/container-runtime';
import { createRuntimeState, goArch } from '@kubelet-ts/node-status';
import type { RuntimeState } from '@kubelet-ts/node-status';
import type { PodSource } from '@kubelet-ts/pod-sources';
import { PLUGIN_TYPE } from '@kubelet-ts/plugin-manager';
import { createCriExecFn, createProbeManager } from '@kubelet-ts/probe-runner';
import type { ProbeManager } from '@kubelet-ts/probe-runner';
import { createRuntimeManager } from '@kubelet-ts/runtime-manager';
import { createStatusManager } from '@kubelet-ts/status-manager';
import { createCsiPluginRegistry } from '@kubelet-ts/volume-manager';
import type { VolumeManager } from '@kubelet-ts/volume-manager';
import { admitHandlers, createAdmissionNode } from './internal/admission.js';
import type { AdmissionNode } from './internal/admission.js';
import { checkRuntimeCgroupDriver, startContainerManager } from './internal/cgroups.js';
import { KUBELET_VERSION } from './internal/cli.js';
import type { KubeletOptions } from './internal/cli.js';
import { containerLogsSource, createKubeletContainerLogManager } from './internal/container-logs.js';
import { criContainerEventSource } from './internal/evented-pleg.js';
import { createKubeletEvictionManager, evictionAdmitHandler, evictionMonitoringIntervalMs } from './internal/eviction.js';
import { createKubeletImageGC, imageGCPeriodMs, imageGCRunnable } from './internal/image-gc.js';
import { resolveNodeIPs, resolveNodeName } from './internal/node.js';
import { nodeResourceGetters } from './internal/node-resources.js';
import type { NodeResourceGetters } from './internal/node-resources.js';
import { buildLocalNode, createKubeletNodeStatus } from './internal/node-status.js';
import { createKubeletPluginManager } from './internal/plugins.js';
import { createPullCredentials } from './internal/pull-credentials.js';
import { runtimeStatusRunnable, waitForRuntime } from './internal/runtime-ready.js';
import type { ApiMode, ApiModeRunnables } from './internal/api/api-mode.js';
import { addSummaryCollectors, clientCertificateTtlCollector, createKubeletMetrics, instrumentCri } from './internal/metrics-routes.js';
import type { KubeletMetrics } from './internal/metrics-routes.js';
import { createKubeletServers } from './internal/servers.js';
import { streamingSource } from './internal/streaming.js';
import type { KubeletServers } from './internal/servers.js';
import { podSourcesRunnable, staticPodSources } from './internal/sources.js';
import { createKubeletStats } from './internal/stats.js';
import { closeAll, supervise, until } from './internal/supervise.js';
import type { Runnable, SuperviseOptions } from './internal/supervise.js';
import { createKubeletVolumeManager, staticObjectSource, staticPodObjectReferences } from './internal/volumes.js';
import { setupDataDirs } from './internal/data-dirs.js';
import { buildCpuManager } from './internal/cpu-manager.js';
import type { KubeletCpuManager } from './internal/cpu-manager.js';
import { buildMemoryManager } from './internal/memory-manager.js';
import type { KubeletMemoryManager } from './internal/memory-manager.js';
import { createKubeletNodeShutdownManager, nodeShutdownAdmitHandler } from './internal/node-shutdown.js';

/** Who this node is: its name and IPs, primary first. */
export interface NodeIdentity {
  nodeName: string;
  nodeIPs: string[];
}

/**
 * What the kubelet is built with besides its configuration (upstream kubelet.Dependencies). Only
 * `logger` is required; everything else defaults to the real node: tests pass fakes.
 */
export interface KubeletDependencies {
  logger: Logger;
  /** Changes the verbosity of `logger` (`/debug/flags/v`). Default: none, and the endpoint refuses every value. */
  logVerbosity?: VerbositySetter;
  clock?: Clock;
  recorder?: EventRecorder;
  metrics?: Metrics;
  /** Default: `resolveNode(flags)`. */
  node?: NodeIdentity;
  /** The container runtime (upstream RemoteRuntimeService/RemoteImageService). Default: CRI at containerRuntimeEndpoint. */
  cri?: CriClient;
  /** Where pods come from (upstream PodConfig's sources). Default: the manifest directory and URL of the configuration. */
  podSources?: PodSource[];
  /** The cgroup operations under the container manager. Default: the host's cgroupfs or systemd. */
  cgroupManager?: CgroupManager;
  /** The machine's cpu and memory. Default: read from /proc and /sys. */
  machineCapacity?: () => Promise<NodeResources>;
  /** Aborts the build while it waits (TLS bootstrap waits for its certificate). */
  signal?: AbortSignal;
}

export interface Kubelet {
  /** Runs every subsystem until the signal aborts; resolves once they all stopped (pods keep running). */
  run(signal: AbortSignal): Promise<void>;
}

/** The node's name (`--hostname-override` or the hostname) and IPs (`--node-ip` or the first addresses). */
export function resolveNode(flags: Pick<KubeletFlags, 'hostnameOverride' | 'nodeIP'>): NodeIdentity {
  return { nodeName: resolveNodeName(flags.hostnameOverride), nodeIPs: resolveNodeIPs(flags.nodeIP) };
}

/** API-server mode: --kubeconfig given (the kubeconfig is written by TLS bootstrap when --bootstrap-kubeconfig is too). */
export function isApiMode(flags: Pick<KubeletFlags, 'kubeconfig'>): flags is KubeletFlags & { kubeconfig: string } {
  return flags.kubeconfig !== undefined && flags.kubeconfig !== '';
}

/** The node's log directory the authenticated server's `/logs/` serves (upstream's, fixed). */
const NODE_LOG_DIR = '/var/log';

/**
 * The start-up log line: the configuration as it takes effect. The authenticated server (port
 * 10250) is served in API mode with `enableServer`.
 */
export function startupSummary(options: Pick<KubeletOptions, 'config' | 'flags'>, node: NodeIdentity): LogFields {
  const api = isApiMode(options.flags);
  return {
    ...summarizeConfiguration(options.config, options.flags),
    mode: api ? 'api-server' : 'standalone',
    // The authenticated server needs the API server (authentication and authorization webhooks).
    server:
      api && options.config.enableServer
        ? `${options.config.address}:${options.config.port}`
        : api
          ? 'disabled'
          : 'not served in standalone mode',
    ...node,
  };
}

interface Context {
  config: KubeletConfiguration;
  flags: KubeletFlags;
  /** Upstream 1.34's gates with `featureGates` applied. */
  featureGates: FeatureGates;
  node: NodeIdentity;
  getNodeIPs: () => string[];
  clock: Clock;
  logger: Logger;
  logVerbosity: VerbositySetter | undefined;
  recorder: EventRecorder;
  metrics: Metrics;
  /** The registries behind /metrics, /metrics/cadvisor, /metrics/resource and /metrics/probes. */
  registries: KubeletMetrics;
  /** The runtime's readiness as the Ready condition reports it (upstream runtimeState). */
  runtimeState: RuntimeState;
  /** kubelet_pod_start_sli_duration_seconds and kubelet_pod_start_total_duration_seconds: told by the sources, pulls and statuses. */
  podStartup: PodStartupLatencyTracker;
  /** API-server mode; undefined standalone. */
  api: ApiMode | undefined;
}

/** The node agents: the runtime and what the kubelet drives through it. */
interface NodeAgents {
  cri: CriClient;
  containerManager: ContainerManager;
  /** Node capacity and allocatable, converted once from the container manager's for every consumer. */
  resources: NodeResourceGetters;
  volumes: VolumeManager;
  probes: ProbeManager;
  runtime: ContainerRuntime;
  cpu: KubeletCpuManager;
  memory: KubeletMemoryManager;
  runnables: Record<'cgroups' | 'volumes' | 'plugins' | 'cpu', Runnable>;
}

async function buildNodeAgents(ctx: Context, deps: KubeletDependencies): Promise<NodeAgents> {
  const { config, flags, clock, logger } = ctx;
  // Every CRI call counted and timed (upstream's instrumented services).
  const cri = instrumentCri(
    deps.cri ??
      createCriClient({
        endpoint: config.containerRuntimeEndpoint,
        ...(config.imageServiceEndpoint ? { imageEndpoint: config.imageServiceEndpoint } : {}),
        timeouts: { defaultMs: durationMs(config.runtimeRequestTimeout) },
        logger: logger.child({ component: 'cri' }),
      }),
    { metrics: ctx.metrics, clock },
  );
  // Cgroups (cgroup-manager): the QoS hierarchy under cgroupRoot, node allocatable on kubepods, pod cgroups.
  // A hierarchy that cannot be created is logged; pods then fail to sync with that reason and start is retried.
  const containerManager = createContainerManager({
    cgroupRoot: config.cgroupRoot,
    cgroupsPerQOS: config.cgroupsPerQOS,
    cgroupDriver: config.cgroupDriver === 'systemd' ? 'systemd' : 'cgroupfs',
    kubeReserved: config.kubeReserved ?? {},
    systemReserved: config.systemReserved ?? {},
    evictionHard: config.evictionHard,
    enforceNodeAllocatable: config.enforceNodeAllocatable,
    podPidsLimit: config.podPidsLimit,
    cpuCfsQuota: config.cpuCFSQuota,
    cpuCfsQuotaPeriodMs: durationMs(config.cpuCFSQuotaPeriod),
    ...(deps.cgroupManager !== undefined ? { cgroupManager: deps.cgroupManager } : {}),
    ...(deps.machineCapacity !== undefined ? { machineCapacity: deps.machineCapacity } : {}),
    // Upstream: the root dir's filesystem is the node's ephemeral-storage capacity (localStorageCapacityIsolation).
    ...(config.localStorageCapacityIsolation ? { ephemeralStoragePath: flags.rootDir } : {}),
    // kubelet_cgroup_manager_duration_seconds.
    metrics: ctx.metrics,
    clock,
    logger: logger.child({ component: 'cm' }),
  });
  await startContainerManager(containerManager, logger.child({ component: 'cm' }));
  const resources = nodeResourceGetters(containerManager);
  // The memory manager (memory-manager: None or Static policy, reservedMemory, memory_manager_state in the root dir,
  // cpuset.mems through CRI), the CPU manager (cpu-manager: none or static policy, cpu_manager_state, cpusets through CRI)
  // and the topology manager (topology-manager) that aligns both at admission.
  const memory = await buildMemoryManager({
    config,
    rootDir: flags.rootDir,
    memoryCapacityBytes: resources.capacity().memoryBytes,
    topologyAffinity: (podUID, containerName) => cpu.topology.affinity(podUID, containerName),
    metrics: ctx.metrics,
    logger: logger.child({ component: 'memorymanager' }),
  });
  const cpu = await buildCpuManager({
    config,
    rootDir: flags.rootDir,
    runtime: cri.runtime,
    hintProviders: [memory.manager],
    metrics: ctx.metrics,
    clock,
    logger: logger.child({ component: 'cpumanager' }),
  });
  // Volumes (volume-manager): mounted under <root-dir>/pods before a pod's containers start, torn down after it
  // terminated; configMap/secret volumes read --static-object-dir (kubelet-ts); CSI drivers register through
  // <root-dir>/plugins_registry (plugin-manager, with a handler per plugin type).
  const volumeLogger = logger.child({ component: 'volumes' });
  const csiDrivers = createCsiPluginRegistry({ logger: volumeLogger });
  const plugins = createKubeletPluginManager({
    rootDir: flags.rootDir,
    handlers: { [PLUGIN_TYPE.CSIPlugin]: csiDrivers },
    clock,
    logger: volumeLogger,
  });
  // ConfigMaps and Secrets: static pods' from --static-object-dir (kubelet-ts), API pods' watched in the cluster.
  const staticObjects = staticObjectSource(flags.staticObjectDir, volumeLogger);
  const objects = ctx.api !== undefined ? ctx.api.objects.source(staticObjects) : staticObjects;
  const volumes = createKubeletVolumeManager({
    rootDir: flags.rootDir,
    getNodeAllocatable: resources.allocatable,
    objects,
    tokens: ctx.api?.objects.tokens,
    syncFrequencyMs: durationMs(config.syncFrequency),
    csiDrivers,
    clock,
    logger: volumeLogger,
  });
  const helper = createRuntimeHelper({
    rootDir: flags.rootDir,
    nodeName: ctx.node.nodeName,
    getNodeIPs: ctx.getNodeIPs,
    getNodeAllocatable: resources.allocatable,
    getPodCgroupParent: (pod) => containerManager.getPodCgroupParent(pod),
    volumes,
    ...(objects !== undefined ? { configMapsAndSecrets: objects } : {}),
    ...(ctx.api !== undefined ? { services: ctx.api.services } : {}),
    resolvConf: config.resolvConf,
    clusterDNS: config.clusterDNS ?? [],
    clusterDomain: config.clusterDomain ?? '',
    logger: logger.child({ component: 'runtime-helper' }),
  });
  // Probes (probe-runner): exec probes run through CRI ExecSync, bounded by the probe's timeout.
  const probes = createProbeManager({
    exec: createCriExecFn(cri.runtime),
    userAgentVersion: KUBELET_VERSION.replace(/^v(\d+\.\d+).*$/, '$1'),
    recorder: ctx.recorder,
    // Their own registry, served on /metrics/probes (upstream's ProberResults and ProberDuration).
    metrics: ctx.registries.probes,
    clock,
    logger: logger.child({ component: 'prober' }),
  });
  // Pull credentials (credential-provider): imagePullSecrets (API mode), the node's docker config, exec plugins.
  const getPullCredentials = await createPullCredentials({
    rootDir: flags.rootDir,
    providerConfig: flags.imageCredentialProviderConfig,
    providerBinDir: flags.imageCredentialProviderBinDir,
    secrets: objects,
    clock,
    logger: logger.child({ component: 'credentials' }),
  });
  const runtime = createRuntimeManager({
    probeResults: probes.probeResults,
    getPullCredentials,
    runtimeService: cri.runtime,
    imageService: cri.image,
    helper,
    podLogsDir: config.podLogsDir,
    containerLogsDir: config.containerLogsDir,
    serializeImagePulls: config.serializeImagePulls,
    ...(config.maxParallelImagePulls !== undefined ? { maxParallelImagePulls: config.maxParallelImagePulls } : {}),
    cpuCfsQuota: config.cpuCFSQuota,
    seccompDefault: config.seccompDefault,
    cpusetFor: (pod, container) => cpu.manager.cpusetFor(pod.metadata.uid, container.name),
    cpusetMemsFor: (pod, container) => memory.cpusetMemsFor(pod, container),
    // --max-parallel-starts (kubelet-ts): sandbox creations and container starts in the runtime at once.
    maxParallelStarts: effectiveMaxParallelStarts(flags),
    // Pulling, Pulled, Created, Started, Killing, BackOff… (events to the API in API mode).
    recorder: ctx.recorder,
    // kubelet_started_pods_total, kubelet_started_containers_total and their errors; the pulls the pod startup SLI leaves out.
    metrics: ctx.metrics,
    pullingTimeRecorder: ctx.podStartup,
    clock,
    logger: logger.child({ component: 'kuberuntime' }),
  });
  return {
    cri,
    containerManager,
    resources,
    volumes,
    probes,
    runtime,
    cpu,
    memory,
    runnables: { cgroups: containerManager, volumes, plugins, cpu: cpu.manager },
  };
}

/** The kubelet's core: pod statuses and the pod lifecycle, with the probes wired both ways. */
function buildCore(ctx: Context, agents: NodeAgents): PodLifecycle {
  const { config, flags, clock, logger, recorder, metrics } = ctx;
  const { probes } = agents;
  // Pod statuses (status-manager): what the lifecycle generates and probes change; what /pods serves.
  // In API mode every status also goes to the API server (pods/status PATCH and the final DELETE).
  const statusManager = createStatusManager({
    clock,
    logger: logger.child({ component: 'status' }),
    ...(ctx.api !== undefined ? { sink: ctx.api.statusSink } : {}),
  });
  const lifecycle = createPodLifecycle({
    statusManager,
    readiness: probes.readiness,
    startup: probes.startup,
    runtime: agents.runtime,
    nodeName: ctx.node.nodeName,
    getNodeIPs: ctx.getNodeIPs,
    rootDir: flags.rootDir,
    volumes: agents.volumes,
    podCgroups: agents.containerManager.podCgroups,
    ...(ctx.api !== undefined ? { objectRegistry: ctx.api.objects.registry } : {}),
    syncFrequencyMs: durationMs(config.syncFrequency),
    // Upstream's EventedPLEG (alpha, off by default): container changes from CRI GetContainerEvents, the relist every
    // 300 s underneath; a runtime without the stream (containerd 1.6: UNIMPLEMENTED) has it relist every second again.
    ...(ctx.featureGates.isEnabled('EventedPLEG')
      ? { containerEvents: criContainerEventSource(agents.cri.runtime, logger.child({ component: 'evented-pleg' })) }
      : {}),
    clock,
    logger: logger.child({ component: 'kubelet' }),
    recorder,
    metrics,
    podStartupTracker: ctx.podStartup,
  });
  // Probes learn pods, container IDs and pod IPs from status changes and every sync (which re-runs the readiness
  // probe of a running, not-ready container, as upstream); workers go with forgotten pods; a changed result syncs the pod.
  statusManager.onStatusChange((pod, status) => probes.updatePodStatus(pod, status), { everySync: true });
  probes.onResultChange((change) => lifecycle.handleProbeResult(change));
  lifecycle.onPodRemoved((uid) => probes.removePod(uid));
  if (ctx.api !== undefined) {
    const objects = ctx.api.objects;
    lifecycle.onPodRemoved((uid) => objects.podRemoved(uid));
  }
  // Upstream addHealthCheck("PLEG"): an unhealthy PLEG keeps the node NotReady.
  for (const check of lifecycle.healthCheckers)
    if (check.name === 'pleg') ctx.runtimeState.addHealthCheck({ name: 'PLEG', check: () => check.check() });
  return lifecycle;
}

interface NodeServices {
  servers: KubeletServers;
  runnables: Record<'containerLogs' | 'imageGc' | 'eviction' | 'runtimeStatus' | 'nodeShutdown', Runnable>;
  /** The node pod admission weighs pods against. */
  admissionNode: AdmissionNode;
  /** API mode's runnables, bound to the kubelet. */
  api: ApiModeRunnables | undefined;
}

/** What keeps the node healthy and visible: image GC, log rotation, stats, eviction, node status and the servers. */
/** A logger given without a way to change its verbosity: `/debug/flags/v` refuses (400). */
const fixedVerbosity: VerbositySetter = {
  setVerbosity() {
    throw new Error("this kubelet's logger has a fixed verbosity");
  },
};

function buildNodeServices(ctx: Context, agents: NodeAgents, lifecycle: PodLifecycle): NodeServices {
  const { config, flags, clock, logger } = ctx;
  const { cri, containerManager } = agents;
  // Image GC (image-gc): thresholds and ages from the configuration, last-used times kept in <root-dir>/image-gc;
  // imageGc.deleteUnusedImages is also the eviction manager's image reclaim.
  const imageGc = createKubeletImageGC({
    config,
    rootDir: flags.rootDir,
    cri,
    podInfraContainerImage: flags.podInfraContainerImage,
    clock,
    logger: logger.child({ component: 'image-gc' }),
    metrics: ctx.metrics,
  });
  // Container logs (container-logs): rotation by containerLogMaxSize/MaxFiles/MaxWorkers/MonitorInterval; a bad value stops start-up, as upstream.
  const containerLogs = createKubeletContainerLogManager({
    config,
    runtime: cri.runtime,
    clock,
    logger: logger.child({ component: 'container-logs' }),
  });
  // Stats (stats): the Summary API from the root cgroup, /proc, statfs, CRI, pod cgroups, log files and volumes;
  // served on the read-only port's /stats/summary (cached for statsHousekeepingInterval) and read fresh by eviction.
  const stats = createKubeletStats({
    nodeName: ctx.node.nodeName,
    rootDir: flags.rootDir,
    podLogsDir: config.podLogsDir,
    volumeStatsAggPeriod: config.volumeStatsAggPeriod,
    enforceNodeAllocatable: config.enforceNodeAllocatable,
    statsHousekeepingInterval: config.statsHousekeepingInterval,
    cri,
    containerManager,
    volumes: agents.volumes,
    getPods: () => lifecycle.getPods(),
    clock,
    logger: logger.child({ component: 'stats' }),
  });
  // Eviction (eviction-manager): fresh summaries every evictionMonitoringPeriod; reclaim through container and image GC,
  // then one pod per cycle through the lifecycle; it joins pod admission; its pressure conditions are the node's.
  const eviction = createKubeletEvictionManager({
    config,
    evictStaticPods: flags.evictStaticPods,
    summaryProvider: stats,
    lifecycle,
    runtime: agents.runtime,
    reclaimImages: () => imageGc.deleteUnusedImages(),
    monitoringIntervalMs: evictionMonitoringIntervalMs(config),
    clock,
    logger: logger.child({ component: 'eviction' }),
    metrics: ctx.metrics,
  });
  lifecycle.addPodAdmitHandler(evictionAdmitHandler(eviction));
  // Graceful node shutdown (node-shutdown): a logind delay inhibitor; on PrepareForShutdown the pods are killed by priority.
  const nodeShutdown = createKubeletNodeShutdownManager({
    config,
    featureGates: ctx.featureGates,
    rootDir: flags.rootDir,
    nodeName: ctx.node.nodeName,
    lifecycle,
    clock,
    logger: logger.child({ component: 'nodeshutdown' }),
    recorder: ctx.recorder,
    metrics: ctx.metrics,
  });
  // Node status (node-status): the v1 Node from the node IPs, cgroup-manager's allocatable, CRI and eviction's conditions.
  const nodeStatus = createKubeletNodeStatus({
    nodeName: ctx.node.nodeName,
    getNodeIPs: ctx.getNodeIPs,
    kubeletVersion: KUBELET_VERSION,
    maxPods: config.maxPods,
    ...(config.podsPerCore !== undefined ? { podsPerCore: config.podsPerCore } : {}),
    maxImages: config.nodeStatusMaxImages,
    // The port of the authenticated server as configured in API mode (upstream daemonEndpoints); none standalone.
    kubeletPort: ctx.api !== undefined ? config.port : 0,
    resources: agents.resources,
    eviction,
    runtimeState: ctx.runtimeState,
    shutdownErrors: () => nodeShutdown.shutdownErrors(),
    localStorageCapacityIsolation: config.localStorageCapacityIsolation,
    cri,
    clock,
    recorder: ctx.recorder,
    logger: logger.child({ component: 'node-status' }),
  });
  // Admission (admission): after eviction's, the sysctl allowlist and upstream's predicates (resources, maxPods, node
  // name, host ports, affinity, NoExecute taints, OS) over the API's Node, else the one this kubelet builds.
  const admissionNode = createAdmissionNode({
    ...(ctx.api !== undefined ? { apiNode: ctx.api.getNode } : {}),
    localNode: () => buildLocalNode(ctx.node.nodeName, config, flags, nodeStatus),
    refreshMs: durationMs(config.nodeStatusUpdateFrequency),
    clock,
    logger: logger.child({ component: 'admission' }),
  });
  const admissionLogger = logger.child({ component: 'admission' });
  agents.cpu.setActivePods(() => lifecycle.getActivePods());
  agents.memory.setPodSources(
    () => lifecycle.getActivePods(),
    () => lifecycle.sourcesReady,
  );
  for (const handler of admitHandlers({
    node: admissionNode,
    resourceAllocator: agents.cpu.topology,
    allowedUnsafeSysctls: config.allowedUnsafeSysctls ?? [],
    preempt: {
      killPod: (pod, request) => lifecycle.evictPod(pod.metadata.uid, request),
      recorder: ctx.recorder,
      metrics: ctx.metrics,
    },
    logger: admissionLogger,
  }))
    lifecycle.addPodAdmitHandler(handler);
  lifecycle.addPodAdmitHandler(nodeShutdownAdmitHandler(nodeShutdown));
  // The authenticated server on `port` (server): API mode's TLS and auth, the container logs from CRI.
  const serving = ctx.api?.serving;
  const authenticated =
    serving === undefined
      ? undefined
      : {
          ...serving,
          nodeName: ctx.node.nodeName,
          containerLogs: containerLogsSource({
            getPods: () => lifecycle.getPods(),
            runtime: cri.runtime,
            clock,
            logger: logger.child({ component: 'container-logs' }),
          }),
          streaming: streamingSource({ getPods: () => lifecycle.getPods(), runtime: cri.runtime }),
          configz: () => ({ ...config }),
          runningPods: () => agents.runtime.getPods(false),
          nodeLogDir: NODE_LOG_DIR,
          logVerbosity: ctx.logVerbosity ?? fixedVerbosity,
        };
  // /metrics/resource and /metrics/cadvisor are computed from the Summary when scraped.
  addSummaryCollectors(ctx.registries, {
    stats,
    getPods: () => lifecycle.getPods(),
    podCgroup: (pod) => containerManager.getPodCgroupParent(pod),
    clock,
    logger: logger.child({ component: 'metrics' }),
  });
  const servers = createKubeletServers({
    config,
    lifecycle,
    stats,
    nodeStatus,
    metrics: ctx.registries,
    ...(authenticated !== undefined ? { authenticated } : {}),
    logger,
  });
  // Eviction starts once every pod source was seen (upstream starts it with the runtime-dependent modules, after the first pods were admitted).
  const evictionRunnable: Runnable = { run: (signal) => eviction.run(signal) };
  return {
    servers,
    runnables: {
      containerLogs,
      imageGc: imageGCRunnable(imageGc, imageGCPeriodMs(config)),
      eviction: evictionRunnable,
      nodeShutdown,
      runtimeStatus: runtimeStatusRunnable(cri.runtime, ctx.runtimeState, { clock, logger: logger.child({ component: 'kubelet' }) }),
    },
    admissionNode,
    api: ctx.api?.start({ lifecycle, nodeStatus }),
  };
}

/**
 * Builds the kubelet: creates every subsystem and the pod cgroup hierarchy (so that node allocatable
 * is known to what is built after it); nothing runs, listens or syncs until `run`.
 */
export async function buildKubelet(options: KubeletOptions, deps: KubeletDependencies): Promise<Kubelet> {
  const node = deps.node ?? resolveNode(options.flags);
  const clock = deps.clock ?? systemClock;
  // Upstream's registries; a caller's own Metrics (tests) takes the place of /metrics' registry.
  const registries = createKubeletMetrics({ nodeName: node.nodeName, version: KUBELET_VERSION });
  const metrics = deps.metrics ?? registries.metrics;
  const { flags } = options;
  // API mode is loaded only when asked for: standalone never loads the API client and its friends.
  const api = isApiMode(flags)
    ? await (
        await import('./internal/api/api-mode.js')
      ).connectApiMode({
        config: options.config,
        flags,
        nodeName: node.nodeName,
        userAgent: `kubelet/${KUBELET_VERSION} (linux/${goArch()}) kubelet-ts`,
        clock,
        logger: deps.logger,
        metrics,
        signal: deps.signal ?? new AbortController().signal,
      })
    : undefined;
  if (api?.clientCertificateNotAfter !== undefined)
    registries.metrics.register(clientCertificateTtlCollector(api.clientCertificateNotAfter, clock));
  const ctx: Context = {
    config: options.config,
    flags,
    featureGates: options.featureGates,
    node,
    getNodeIPs: () => node.nodeIPs,
    clock,
    logger: deps.logger,
    logVerbosity: deps.logVerbosity,
    recorder: deps.recorder ?? api?.recorder ?? noopEventRecorder,
    metrics,
    registries,
    runtimeState: createRuntimeState({ clock }),
    podStartup: createPodStartupLatencyTracker({ clock, metrics, logger: deps.logger.child({ component: 'pod-startup' }) }),
    api,
  };
  // Upstream setupDataDirs (the CPU and memory managers' checkpoints: buildNodeAgents), shared with upstream.
  await setupDataDirs(flags.rootDir, ctx.config.podLogsDir);
  const agents = await buildNodeAgents(ctx, deps);
  // Upstream initializeModules: the containers log dir (symlinks to the container logs) exists before any start.
  await mkdir(ctx.config.containerLogsDir, { recursive: true, mode: 0o755 });
  const lifecycle = buildCore(ctx, agents);
  const services = buildNodeServices(ctx, agents, lifecycle);
  const sources = podSourcesRunnable({
    sources: [
      ...(deps.podSources ?? staticPodSources(ctx.config, node.nodeName, ctx.clock, ctx.logger)),
      ...(api !== undefined ? [api.podSource] : []),
    ],
    allowedObjectReferences: staticPodObjectReferences(ctx.flags.staticObjectDir),
    // Upstream's pod config tells the pod startup latency tracker of every API pod it sees.
    observePod: (pod, whenMs) => ctx.podStartup.observedPodOnWatch(pod, whenMs),
    lifecycle,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  return { run: (signal) => runKubelet(ctx, { agents, lifecycle, services, sources }, signal) };
}

/** Upstream Kubelet.Run: servers first, then, once the runtime answers, every subsystem under one supervisor. */
async function runKubelet(
  ctx: Context,
  k: { agents: NodeAgents; lifecycle: PodLifecycle; services: NodeServices; sources: Runnable },
  signal: AbortSignal,
): Promise<void> {
  const { clock, logger } = ctx;
  const { cri, containerManager } = k.agents;
  const { servers, api } = k.services;
  const opts = (component: string, extra: Partial<SuperviseOptions> = {}): SuperviseOptions => ({
    clock,
    logger: logger.child({ component }),
    ...extra,
  });
  await servers.listen();
  // Upstream BirthCry.
  ctx.recorder.event(nodeReference(ctx.node.nodeName), EventType.Normal, EventReason.Starting, 'Starting kubelet.');
  // Before the runtime answers, as upstream: the runtime's status for the Ready condition and, in API mode,
  // the node's registration, status and lease, so that the node is seen (NotReady) while the runtime is missing.
  const heartbeats = [
    supervise('Runtime status', k.services.runnables.runtimeStatus, signal, opts('kubelet')),
    ...(api !== undefined ? superviseHeartbeats(api, signal, opts) : []),
  ];
  const subsystems = async (): Promise<void> => {
    // Until the runtime answers nothing else starts; this only gives up when the kubelet is stopped.
    const runtimeName = await waitForRuntime(cri.runtime, { endpoint: ctx.config.containerRuntimeEndpoint, clock, logger, signal }).catch(
      () => undefined,
    );
    if (runtimeName === undefined) return;
    checkRuntimeCgroupDriver(containerManager, cri.runtime, logger.child({ component: 'cm' }));
    const sourcesReady = (s: AbortSignal): Promise<void> => until(() => k.lifecycle.sourcesReady, clock, s);
    // Admission needs a node before the first pod arrives (upstream builds one on demand).
    await k.services.admissionNode.refresh();
    await Promise.all([
      supervise('Admission node', k.services.admissionNode, signal, opts('admission')),
      supervise('Container manager', k.agents.runnables.cgroups, signal, opts('cm')),
      supervise('CPU manager', k.agents.runnables.cpu, signal, opts('cpumanager')),
      supervise('Pod source stream', k.sources, signal, opts('kubelet')),
      supervise('Volume manager', k.agents.runnables.volumes, signal, opts('volumes', { restartMs: 5_000 })),
      supervise('Plugin watcher', k.agents.runnables.plugins, signal, opts('volumes', { consequence: 'CSI drivers will not register' })),
      supervise('Container log manager', k.services.runnables.containerLogs, signal, opts('container-logs')),
      supervise('Image garbage collection', k.services.runnables.imageGc, signal, opts('image-gc')),
      supervise('Eviction manager', k.services.runnables.eviction, signal, opts('eviction', { after: sourcesReady })),
      supervise(
        'Node shutdown manager',
        k.services.runnables.nodeShutdown,
        signal,
        opts('nodeshutdown', { consequence: 'pods are not stopped gracefully when the node shuts down' }),
      ),
      supervise('Pod lifecycle', k.lifecycle, signal, opts('kubelet')),
      ...(api !== undefined
        ? [
            supervise('Pod informer', api.pods.podInformer, signal, opts('config', { restartMs: 5_000 })),
            supervise('Service informer', api.pods.serviceInformer, signal, opts('informer', { restartMs: 5_000 })),
            supervise('Status manager', api.pods.statusSink, signal, opts('status', { restartMs: 5_000 })),
            supervise('Mirror pod manager', api.pods.mirrorPods, signal, opts('mirror-pods', { after: sourcesReady, restartMs: 5_000 })),
          ]
        : []),
    ]);
  };
  await Promise.all([...heartbeats, subsystems()]);
  await closeAll(logger, [
    () => servers.close(),
    () => cri.close(),
    () => k.agents.probes.stop(),
    ctx.api !== undefined ? () => ctx.api?.close() : undefined,
  ]);
}

/** API mode's heartbeats, each restarted after a failure: the node must never stop reporting. */
function superviseHeartbeats(
  api: ApiModeRunnables,
  signal: AbortSignal,
  opts: (component: string, extra?: Partial<SuperviseOptions>) => SuperviseOptions,
): Promise<void>[] {
  const { heartbeats } = api;
  return [
    supervise('Node informer', heartbeats.nodeInformer, signal, opts('informer', { restartMs: 5_000 })),
    supervise('Node status updater', heartbeats.nodeStatus, signal, opts('node-status', { restartMs: 1_000 })),
    supervise('Node lease controller', heartbeats.nodeLease, signal, opts('node-lease', { restartMs: 1_000 })),
    supervise('Client certificate manager', heartbeats.certificates, signal, opts('certificate', { restartMs: 10_000 })),
  ];
}
