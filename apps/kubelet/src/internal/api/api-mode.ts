/**
 * API-server mode (upstream NewMainKubelet's kubeClient != nil branches): credentials, the three
 * clients, the node and pod informers, events, the pod status sink, node registration, status and
 * lease, and mirror pods. Loaded by dynamic import only when --kubeconfig is given, so standalone
 * never loads kube-client, certificate-manager or events.
 */
import { uptime } from 'node:os';
import { isStaticPod, NodeSchema, ServiceSchema } from '@kubelet-ts/api';
import type { Node, Pod, Service } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import type { KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import { createEventBroadcaster } from '@kubelet-ts/events';
import type { Informer } from '@kubelet-ts/kube-client';
import { createInformer, eventsApi, leasesApi, nodesApi, podsApi } from '@kubelet-ts/kube-client';
import {
  createNodeLeaseController,
  createNodeRegistration,
  createNodeStartupLatencyTracker,
  createNodeStatusUpdater,
} from '@kubelet-ts/node-status';
import type { NodeStartupLatencyTracker, NodeStatusManager } from '@kubelet-ts/node-status';
import { createMirrorPodManager } from '@kubelet-ts/pod-lifecycle';
import type { MirrorPodManager, PodLifecycle, ServiceLister } from '@kubelet-ts/pod-lifecycle';
import { createApiSource } from '@kubelet-ts/pod-sources';
import type { ApiPodSource } from '@kubelet-ts/pod-sources';
import { createApiStatusSink } from '@kubelet-ts/status-manager';
import type { ApiStatusSink } from '@kubelet-ts/status-manager';
import { z } from 'zod';
import { buildLocalNode } from '../node-status.js';
import type { Runnable } from '../supervise.js';
import { createKubeletClients } from './clients.js';
import type { KubeletClients } from './clients.js';
import { resolveCredentials } from './credentials.js';
import type { Credentials } from './credentials.js';
import { createClusterObjects } from './objects.js';
import type { ClusterObjects } from './objects.js';
import { createKubeletServing } from './serving.js';
import type { KubeletServing } from './serving.js';

export interface ApiModeOptions {
  config: KubeletConfiguration;
  flags: KubeletFlags & { kubeconfig: string };
  nodeName: string;
  userAgent: string;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Aborts a bootstrap that waits for its certificate. */
  signal: AbortSignal;
}

/** What the rest of the kubelet takes from API mode while it is built. */
export interface ApiMode {
  /** Events to the API server (and the log). */
  recorder: EventRecorder;
  /** The pods bound to this node, merged with the static sources. */
  podSource: ApiPodSource;
  /** The pod status manager's sink: PATCHes pods/status, makes the final DELETE. */
  statusSink: ApiStatusSink;
  /** The node as the informer has it (undefined before it is registered). */
  getNode(): Node | undefined;
  /** ConfigMaps, Secrets and service account tokens for the pods (volumes, env), by pod registration. */
  objects: ClusterObjects;
  /** Every service of the cluster, for the service environment variables. */
  services: ServiceLister;
  /** TLS and authentication/authorization of the server on `port` (10250); undefined when `enableServer` is false. */
  serving: KubeletServing | undefined;
  /**
   * When the client certificate the certificate manager holds expires (ms since the epoch; undefined: none,
   * or expired), for `kubelet_certificate_manager_client_ttl_seconds`. Absent without a certificate manager.
   */
  clientCertificateNotAfter?: () => number | undefined;
  /** Binds the kubelet built after this, and returns what then runs. */
  start(kubelet: ApiModeKubelet): ApiModeRunnables;
  close(): Promise<void>;
}

/** What API mode needs of the kubelet that is built after it. */
export interface ApiModeKubelet {
  lifecycle: Pick<PodLifecycle, 'couldHaveRunningContainers' | 'podResourcesAreReclaimed' | 'getPods'>;
  nodeStatus: Pick<NodeStatusManager, 'setNodeStatus'>;
}

export interface ApiModeRunnables {
  /** Start before the runtime answers (upstream Run): the node informer, registration, node status and lease, certificates. */
  heartbeats: Record<'nodeInformer' | 'nodeStatus' | 'nodeLease' | 'certificates', Runnable>;
  /**
   * With the other subsystems: the pod informer (once the node informer synced), the services
   * informer, pod statuses, mirror pods (after sourcesReady).
   */
  pods: Record<'podInformer' | 'serviceInformer' | 'statusSink' | 'mirrorPods', Runnable>;
}

/** Upstream NodeLeaseNamespace. */
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * Connects to the API server: bootstrap (which may wait for the CSR's approval), then the clients,
 * informers, event broadcaster, pod source and status sink. Nothing talks to the API server after
 * the bootstrap until `start`'s runnables run.
 */
export async function connectApiMode(options: ApiModeOptions): Promise<ApiMode> {
  const { config, flags, nodeName, clock, logger, metrics } = options;
  // Upstream NewNodeStartupLatencyTracker: the kubelet starts now; the machine booted its uptime ago (whole seconds, as sysinfo).
  const nodeStartup = createNodeStartupLatencyTracker({
    clock,
    metrics,
    bootTimeMs: Math.floor(clock.now() / 1000 - Math.floor(uptime())) * 1000,
  });
  const credentials = await resolveCredentials({
    kubeconfig: flags.kubeconfig,
    ...(flags.bootstrapKubeconfig !== undefined ? { bootstrapKubeconfig: flags.bootstrapKubeconfig } : {}),
    certDir: flags.certDir,
    rotateCertificates: config.rotateCertificates === true,
    nodeName,
    userAgent: options.userAgent,
    clock,
    logger,
    metrics,
    signal: options.signal,
  });
  const clients = createKubeletClients({
    connection: credentials.connection,
    config,
    userAgent: options.userAgent,
    clock,
    logger,
    metrics,
  });
  logger.info('Connected to the API server', { server: credentials.connection.server, source: credentials.connection.source });
  // The serving CSR names the node's addresses as registered; the node informer is made below.
  let nodeAddresses: () => ReadonlyArray<{ type: string; address: string }> = () => [];
  const serving = config.enableServer
    ? await createKubeletServing({
        config,
        flags,
        nodeName,
        client: clients.main,
        nodeAddresses: () => nodeAddresses(),
        clock,
        logger: logger.child({ component: 'server' }),
        metrics,
      })
    : undefined;
  const broadcaster = createEventBroadcaster({ clock, logger: logger.child({ component: 'events' }) });
  const recorder = broadcaster.newRecorder({ component: 'kubelet', host: nodeName });
  // Events recorded from now on are sent (with upstream's retries and aggregation) and logged at debug.
  const stopSink = broadcaster.startRecordingToSink(eventsApi(clients.events));
  const stopLogging = broadcaster.startStructuredLogging({ level: 'debug' });
  const nodeInformer = createInformer({
    client: clients.main,
    path: '/api/v1/nodes',
    fieldSelector: `metadata.name=${nodeName}`,
    schema: NodeSchema,
    clock,
    logger: logger.child({ component: 'informer', resource: 'nodes' }),
  });
  // Raw objects: the pod source and the status sink validate each pod themselves, and name it when bad.
  const podInformer = createInformer({
    client: clients.main,
    path: '/api/v1/pods',
    fieldSelector: `spec.nodeName=${nodeName}`,
    schema: z.unknown(),
    clock,
    logger: logger.child({ component: 'informer', resource: 'pods' }),
  });
  // Upstream's service reflector: every namespace, for the service environment variables.
  const serviceInformer = createInformer({
    client: clients.main,
    path: '/api/v1/services',
    schema: ServiceSchema,
    clock,
    logger: logger.child({ component: 'informer', resource: 'services' }),
  });
  nodeAddresses = () => nodeInformer.get(nodeName)?.status?.addresses ?? [];
  const podSource = createApiSource({ informer: podInformer, nodeName, logger: logger.child({ component: 'config' }) });
  let kubelet: ApiModeKubelet | undefined;
  const mirrorPods = createMirrorPodManager({
    api: podsApi(clients.main),
    nodeName,
    getNode: () => nodeInformer.get(nodeName),
    // Every static pod the kubelet has, finished ones too: their mirror keeps the final status.
    staticPods: () => (kubelet?.lifecycle.getPods() ?? []).filter((p: Pod) => isStaticPod(p)),
    clock,
    logger: logger.child({ component: 'mirror-pods' }),
    metrics,
  });
  podSource.onMirrorPods((pods) => mirrorPods.setMirrorPods(pods));
  const statusSink = createApiStatusSink({
    podApi: podsApi(clients.main),
    // Until the lifecycle is bound, every pod may still run and none is reclaimed: nothing is deleted early.
    podCouldHaveRunningContainers: (uid) => kubelet?.lifecycle.couldHaveRunningContainers(uid) ?? true,
    podResourcesAreReclaimed: (uid) => kubelet?.lifecycle.podResourcesAreReclaimed(uid) ?? false,
    podLister: podInformer,
    mirrorPods,
    clock,
    logger: logger.child({ component: 'status' }),
    metrics,
  });
  const objects = createClusterObjects({
    client: clients.main,
    syncFrequencyMs: durationMs(config.syncFrequency),
    clock,
    logger,
    signal: options.signal,
  });
  const certificates = credentials.certificateManager;
  return {
    recorder,
    podSource,
    statusSink,
    objects,
    services: serviceInformer,
    serving,
    ...(certificates !== undefined ? { clientCertificateNotAfter: () => certificates.current()?.notAfter } : {}),
    getNode: () => nodeInformer.get(nodeName),
    start(k) {
      kubelet = k;
      return apiModeRunnables(
        options,
        { clients, credentials, serving, nodeInformer, podInformer, serviceInformer, statusSink, mirrorPods, nodeStartup },
        k,
      );
    },
    async close() {
      stopSink();
      stopLogging();
      await broadcaster.shutdown();
      clients.closeAllConnections();
      clients.events.closeAllConnections();
      credentials.close();
    },
  };
}

interface Connected {
  clients: KubeletClients;
  /** kubelet_node_startup_*: told by the registration and the status updater. */
  nodeStartup: NodeStartupLatencyTracker;
  credentials: Credentials;
  serving: KubeletServing | undefined;
  nodeInformer: Informer<Node>;
  podInformer: Informer<unknown>;
  serviceInformer: Informer<Service>;
  statusSink: ApiStatusSink;
  mirrorPods: MirrorPodManager;
}

function apiModeRunnables(options: ApiModeOptions, c: Connected, kubelet: ApiModeKubelet): ApiModeRunnables {
  const { config, flags, nodeName, clock, logger, metrics } = options;
  const { clients } = c;
  const nodeApi = nodesApi(clients.heartbeat);
  const nodeLogger = logger.child({ component: 'node-status' });
  const registration = config.registerNode
    ? createNodeRegistration({
        nodeName,
        nodeApi,
        initialNode: () => buildLocalNode(nodeName, config, flags, kubelet.nodeStatus),
        clock,
        logger: nodeLogger,
        metrics,
        startupTracker: c.nodeStartup,
      })
    : undefined;
  const updater = createNodeStatusUpdater({
    nodeName,
    nodeApi,
    nodeLister: c.nodeInformer,
    nodeStatus: kubelet.nodeStatus,
    ...(registration !== undefined ? { registration } : {}),
    updateFrequencyMs: durationMs(config.nodeStatusUpdateFrequency),
    reportFrequencyMs: durationMs(config.nodeStatusReportFrequency),
    onRepeatedHeartbeatFailure: () => clients.closeAllConnections(),
    clock,
    logger: nodeLogger,
    metrics,
    startupTracker: c.nodeStartup,
  });
  const lease = createNodeLeaseController({
    nodeName,
    leaseApi: leasesApi(clients.heartbeat),
    nodeApi,
    leaseDurationSeconds: config.nodeLeaseDurationSeconds,
    namespace: NODE_LEASE_NAMESPACE,
    onRepeatedHeartbeatFailure: () => clients.closeAllConnections(),
    clock,
    logger: logger.child({ component: 'node-lease' }),
    metrics,
  });
  const { certificateManager } = c.credentials;
  return {
    heartbeats: {
      nodeInformer: informerRunnable(c.nodeInformer),
      nodeStatus: { run: (signal) => updater.run(signal) },
      nodeLease: { run: (signal) => lease.run(signal) },
      // The client certificate, the serving certificate (requested, renewed or reloaded) and the client CA bundle.
      certificates: {
        run: async (signal) => {
          await Promise.all([
            certificateManager !== undefined ? certificateManager.run(signal) : untilAborted(signal),
            c.serving !== undefined ? c.serving.certificates.run(signal) : untilAborted(signal),
            c.serving?.clientCA !== undefined ? c.serving.clientCA.run(signal) : untilAborted(signal),
          ]);
        },
      },
    },
    pods: {
      // Upstream starts the API pod source once the node informer has synced.
      podInformer: {
        run: async (signal) => {
          await c.nodeInformer.waitForSync(signal);
          await informerRunnable(c.podInformer).run(signal);
        },
      },
      serviceInformer: informerRunnable(c.serviceInformer),
      statusSink: { run: (signal) => c.statusSink.run(signal) },
      // Start it once every source delivered (lifecycle.sourcesReady): orphaned mirror pods are deleted then.
      mirrorPods: { run: (signal) => c.mirrorPods.run(signal) },
    },
  };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** An informer as a runnable: it restarts itself on errors and stops with the signal. */
function informerRunnable(informer: Pick<Informer<unknown>, 'start'>): Runnable {
  return {
    async run(signal) {
      informer.start(signal);
      await untilAborted(signal);
    },
  };
}
