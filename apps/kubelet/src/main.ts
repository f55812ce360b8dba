/**
 * kubelet-ts: the node agent binary. Wiring only: every behaviour lives in a @kubelet-ts library
 * or in ./internal helpers.
 */
import { createContainerManager } from '@kubelet-ts/cgroup-manager';
import { systemClock } from '@kubelet-ts/common';
import { durationMs, effectiveMaxParallelStarts, summarizeConfiguration } from '@kubelet-ts/config';
import { createCriClient } from '@kubelet-ts/cri-client';
import { createPodLifecycle, createRuntimeHelper } from '@kubelet-ts/pod-lifecycle';
import { PLUGIN_TYPE } from '@kubelet-ts/plugin-manager';
import { createPodConfig } from '@kubelet-ts/pod-sources';
import { createStatusManager } from '@kubelet-ts/status-manager';
import { createCriExecFn, createProbeManager } from '@kubelet-ts/probe-runner';
import { createRuntimeManager } from '@kubelet-ts/runtime-manager';
import { createHealthzServer, createReadOnlyServer, pingHealthz } from '@kubelet-ts/server';
import { createCsiPluginRegistry } from '@kubelet-ts/volume-manager';
import { allocatableResources, checkRuntimeCgroupDriver, startContainerManager } from './internal/cgroups.js';
import { KUBELET_VERSION, loadOptionsOrExit } from './internal/cli.js';
import { createKubeletEvictionManager, evictionMonitoringIntervalMs, runEvictionManager } from './internal/eviction.js';
import { createKubeletContainerLogManager, runContainerLogManager } from './internal/container-logs.js';
import { createKubeletImageGC, imageGCPeriodMs, runImageGC } from './internal/image-gc.js';
import { createKubeletLogger } from './internal/logging.js';
import { resolveNodeIPs, resolveNodeName } from './internal/node.js';
import { createKubeletPluginManager, runPluginManager } from './internal/plugins.js';
import { createKubeletNodeStatus, installNodeRoute } from './internal/node-status.js';
import { abortOnSignals, applyOomScoreAdj } from './internal/process.js';
import { waitForRuntime } from './internal/runtime-ready.js';
import { closeAll, connectSources } from './internal/run.js';
import { listenIfEnabled } from './internal/serve.js';
import { staticPodSources } from './internal/sources.js';
import { createKubeletStats, serveStatsSummary } from './internal/stats.js';
import { createKubeletVolumeManager, runVolumeManager, staticPodObjectReferences } from './internal/volumes.js';

const { config, flags, warnings } = await loadOptionsOrExit(process.argv.slice(2));
const logger = createKubeletLogger({ verbosity: config.logging.verbosity, format: config.logging.format === 'json' ? 'json' : 'text' });
const clock = systemClock;
for (const warning of warnings) logger.warn(warning);
const nodeName = resolveNodeName(flags.hostnameOverride);
const nodeIPs = resolveNodeIPs(flags.nodeIP);
const getNodeIPs = (): string[] => nodeIPs;
logger.info('Starting kubelet-ts', { ...summarizeConfiguration(config, flags), nodeName, nodeIPs });
const shutdown = abortOnSignals(logger);
await applyOomScoreAdj(config.oomScoreAdj, logger);

const cri = createCriClient({
  endpoint: config.containerRuntimeEndpoint,
  ...(config.imageServiceEndpoint ? { imageEndpoint: config.imageServiceEndpoint } : {}),
  timeouts: { defaultMs: durationMs(config.runtimeRequestTimeout) },
  logger: logger.child({ component: 'cri' }),
});
// Image GC (image-gc): thresholds and ages from the configuration, last-used times kept in <root-dir>/image-gc;
// imageGc.deleteUnusedImages is also the eviction manager's image reclaim.
const imageGc = createKubeletImageGC({ config, rootDir: flags.rootDir, cri, podInfraContainerImage: flags.podInfraContainerImage, clock, logger: logger.child({ component: 'image-gc' }) });
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
  clock,
  logger: logger.child({ component: 'cm' }),
});
await startContainerManager(containerManager, logger.child({ component: 'cm' }));
// Volumes (volume-manager): mounted under <root-dir>/pods before a pod's containers start, torn down after it
// terminated; the same object serves the runtime helper (container mounts) and the lifecycle.
// configMap/secret volumes read --static-object-dir (kubelet-ts); CSI drivers register through <root-dir>/plugins_registry
// (plugin-manager, with a handler per plugin type: CSI drivers go to the volume manager's registry).
const csiDrivers = createCsiPluginRegistry({ logger: logger.child({ component: 'volumes' }) });
const plugins = createKubeletPluginManager({ rootDir: flags.rootDir, handlers: { [PLUGIN_TYPE.CSIPlugin]: csiDrivers }, clock, logger: logger.child({ component: 'volumes' }) });
const volumes = createKubeletVolumeManager({ rootDir: flags.rootDir, allocatable: containerManager.getNodeAllocatable()?.allocatable, staticObjectDir: flags.staticObjectDir, syncFrequencyMs: durationMs(config.syncFrequency), csiDrivers, clock, logger: logger.child({ component: 'volumes' }) });
const helper = createRuntimeHelper({
  rootDir: flags.rootDir,
  nodeName,
  getNodeIPs,
  getNodeAllocatable: allocatableResources(containerManager),
  getPodCgroupParent: (pod) => containerManager.getPodCgroupParent(pod),
  volumes,
  resolvConf: config.resolvConf,
  clusterDNS: config.clusterDNS ?? [],
  clusterDomain: config.clusterDomain ?? '',
  logger: logger.child({ component: 'runtime-helper' }),
});
// Probes (probe-runner): exec probes run through CRI ExecSync, bounded by the probe's timeout.
const probes = createProbeManager({
  exec: createCriExecFn(cri.runtime),
  userAgentVersion: KUBELET_VERSION.replace(/^v(\d+\.\d+).*$/, '$1'),
  clock,
  logger: logger.child({ component: 'prober' }),
});
const runtime = createRuntimeManager({
  probeResults: probes.probeResults,
  runtimeService: cri.runtime,
  imageService: cri.image,
  helper,
  podLogsDir: config.podLogsDir,
  serializeImagePulls: config.serializeImagePulls,
  ...(config.maxParallelImagePulls !== undefined ? { maxParallelImagePulls: config.maxParallelImagePulls } : {}),
  cpuCfsQuota: config.cpuCFSQuota,
  // --max-parallel-starts (kubelet-ts): sandbox creations and container starts in the runtime at once.
  maxParallelStarts: effectiveMaxParallelStarts(flags),
  clock,
  logger: logger.child({ component: 'kuberuntime' }),
});
// Container logs (container-logs): rotation by containerLogMaxSize/MaxFiles/MaxWorkers/MonitorInterval; a bad value stops start-up, as upstream.
const containerLogs = createKubeletContainerLogManager(config, cri.runtime, clock, logger.child({ component: 'container-logs' }));
// Pod statuses (status-manager): what the lifecycle generates and probes change; what /pods serves.
const statusManager = createStatusManager({ clock, logger: logger.child({ component: 'status' }) });
const lifecycle = createPodLifecycle({
  statusManager,
  readiness: probes.readiness,
  startup: probes.startup,
  runtime,
  nodeName,
  getNodeIPs,
  rootDir: flags.rootDir,
  volumes,
  podCgroups: containerManager.podCgroups,
  syncFrequencyMs: durationMs(config.syncFrequency),
  clock,
  logger: logger.child({ component: 'kubelet' }),
});
// Probes learn pods, container IDs and pod IPs from status changes and every sync (which re-runs the readiness
// probe of a running, not-ready container, as upstream); workers go with forgotten pods; a changed result syncs the pod.
statusManager.onStatusChange((pod, status) => probes.updatePodStatus(pod, status), { everySync: true });
probes.onResultChange((change) => lifecycle.handleProbeResult(change));
lifecycle.onPodRemoved((uid) => probes.removePod(uid));
const healthChecks = [pingHealthz, ...lifecycle.healthCheckers];
const healthz = await listenIfEnabled('healthz', () => createHealthzServer({ checks: healthChecks, logger }), config.healthzBindAddress, config.healthzPort, logger);
const readOnly = await listenIfEnabled(
  'read-only',
  () => createReadOnlyServer({ getPods: () => lifecycle.getPods(), checks: healthChecks, logger }),
  config.address,
  config.readOnlyPort,
  logger,
);
// Stats (stats): the Summary API from the root cgroup, /proc, statfs, CRI, pod cgroups, log files and volumes;
// served on the read-only port's /stats/summary (cached up to 10 s) and read fresh by eviction.
const stats = createKubeletStats({ nodeName, rootDir: flags.rootDir, podLogsDir: config.podLogsDir, volumeStatsAggPeriod: config.volumeStatsAggPeriod, enforceNodeAllocatable: config.enforceNodeAllocatable, cri, containerManager, volumes, getPods: () => lifecycle.getPods(), clock, logger: logger.child({ component: 'stats' }) });
serveStatsSummary(readOnly, stats, logger);
// Eviction (eviction-manager): fresh summaries every 10 s; reclaim through container and image GC, then one pod per
// cycle through the lifecycle; joins pod admission; the pressure conditions are on the read-only port's /node.
const eviction = createKubeletEvictionManager({ config, evictStaticPods: flags.evictStaticPods, summaryProvider: stats, lifecycle, runtime, reclaimImages: () => imageGc.deleteUnusedImages(), monitoringIntervalMs: evictionMonitoringIntervalMs(process.env, logger), clock, logger: logger.child({ component: 'eviction' }) });
// Node status (node-status): the v1 Node from the node IPs, cgroup-manager's allocatable, CRI and eviction's conditions, on /node.
const nodeStatus = createKubeletNodeStatus({ nodeName, getNodeIPs, kubeletVersion: KUBELET_VERSION, maxPods: config.maxPods, maxImages: config.nodeStatusMaxImages, kubeletPort: 0, containerManager, eviction, cri, logger: logger.child({ component: 'node-status' }) });
if (readOnly !== undefined) installNodeRoute(readOnly.router, nodeStatus);

const runtimeName = await waitForRuntime(cri.runtime, { endpoint: config.containerRuntimeEndpoint, clock, logger, signal: shutdown.signal }).catch(() => undefined);
if (runtimeName !== undefined) checkRuntimeCgroupDriver(containerManager, cri.runtime, logger.child({ component: 'cm' }));
const cgroupsRunning = containerManager.run(shutdown.signal);
const podConfig = createPodConfig({ sources: staticPodSources(config, nodeName, clock, logger), allowedObjectReferences: staticPodObjectReferences(flags.staticObjectDir), clock, logger, signal: shutdown.signal });
const feeding = connectSources(podConfig, lifecycle, logger);
const volumesRunning = runVolumeManager(volumes, shutdown.signal, clock, logger.child({ component: 'volumes' }));
const pluginsRunning = runPluginManager(plugins, shutdown.signal, logger.child({ component: 'volumes' }));
const containerLogsRunning = runtimeName === undefined ? undefined : runContainerLogManager(containerLogs, shutdown.signal, logger.child({ component: 'container-logs' }));
const imageGcRunning = runImageGC(imageGc, runtimeName !== undefined, shutdown.signal, imageGCPeriodMs(process.env, logger));
const evictionRunning = runtimeName !== undefined ? runEvictionManager(eviction, lifecycle, shutdown.signal, clock, logger.child({ component: 'eviction' })) : undefined;
if (runtimeName !== undefined) await lifecycle.run(shutdown.signal);

await closeAll(logger, [() => podConfig.close(), () => feeding, () => healthz?.close(), () => readOnly?.close(), () => cri.close(), () => probes.stop(), () => cgroupsRunning, () => volumesRunning, () => pluginsRunning, () => imageGcRunning, () => containerLogsRunning, () => evictionRunning]);
logger.info('kubelet-ts stopped; pods keep running');
process.exit(0);
