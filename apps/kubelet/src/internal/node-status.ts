import type { Node } from '@kubelet-ts/api';
import { nodeResourceList } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger } from '@kubelet-ts/common';
import type { KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { EvictionManager } from '@kubelet-ts/eviction-manager';
import {
  createNodeStatus,
  daemonEndpoints,
  diskPressureCondition,
  images,
  initialNode,
  machineInfo,
  memoryPressureCondition,
  nodeAddress,
  nodeFeatures,
  pidPressureCondition,
  platformInfo,
  readHostInfo,
  readHugePages,
  readyCondition,
  runtimeHandlers,
  versionInfo,
} from '@kubelet-ts/node-status';
import type { HostInfo, NodeStatusManager, RuntimeState } from '@kubelet-ts/node-status';
import type { Router } from '@kubelet-ts/server';
import { sendJson } from '@kubelet-ts/server';
import type { NodeResourceGetters } from './node-resources.js';

export interface KubeletNodeStatusOptions {
  nodeName: string;
  getNodeIPs: () => string[];
  kubeletVersion: string;
  /** `maxPods`, `podsPerCore` and `nodeStatusMaxImages` of the configuration. */
  maxPods: number;
  podsPerCore?: number;
  maxImages: number;
  /** The port of the kubelet's authenticated server, 0 when it serves none (standalone). */
  kubeletPort: number;
  /** Node capacity and allocatable (the container manager's, the machine's until it computed them). */
  resources: NodeResourceGetters;
  eviction: Pick<EvictionManager, 'isUnderMemoryPressure' | 'isUnderDiskPressure' | 'isUnderPIDPressure'>;
  /** The runtime's and network's readiness (and the PLEG's health) for the Ready condition. */
  runtimeState: Pick<RuntimeState, 'runtimeErrors' | 'networkErrors' | 'runtimeHandlers' | 'runtimeFeatures'>;
  /** The node shutdown manager's "node is shutting down" for the Ready condition. */
  shutdownErrors?: () => readonly string[];
  /** `localStorageCapacityIsolation`: Ready then needs an ephemeral-storage capacity. */
  localStorageCapacityIsolation: boolean;
  cri: { runtime: Pick<RuntimeService, 'version'>; image: Pick<ImageService, 'listImages'> };
  clock: Clock;
  /** Node condition transitions (NodeReady, NodeHasSufficientMemory…). */
  recorder: EventRecorder;
  logger: Logger;
  /** The machine's identity and OS (tests); read from the host once by default. */
  hostInfo?: () => Promise<HostInfo>;
  /** The machine's huge pages as capacity (tests); read from /sys once by default. */
  hugePages?: () => Promise<Record<string, string>>;
}

/**
 * The node as the kubelet posts it in API mode (upstream defaultNodeStatusFuncs, in their order):
 * addresses from the node IPs, capacity and allocatable from the cgroup manager (the machine's
 * capacity until it computed them) with the huge pages, the machine's identity, the runtime's
 * version and images, eviction's pressure conditions and the Ready condition.
 */
export function createKubeletNodeStatus(options: KubeletNodeStatusOptions): NodeStatusManager {
  const { resources, cri, clock, recorder } = options;
  let host: Promise<HostInfo> | undefined;
  const hostInfo = (): Promise<HostInfo> => (host ??= (options.hostInfo ?? (() => readHostInfo()))());
  let hugePagesRead: Promise<Record<string, string>> | undefined;
  // Upstream: hugepages are node capacity and allocatable (none reserved here).
  const hugePages = (): Promise<Record<string, string>> =>
    (hugePagesRead ??= (options.hugePages ?? (() => readHugePages()))().catch(() => ({})));
  let runtimeVersion: string | undefined;
  return createNodeStatus({
    nodeName: options.nodeName,
    setters: [
      nodeAddress({ nodeIPs: options.getNodeIPs, hostname: () => options.nodeName }),
      machineInfo({
        capacity: async () => ({ ...nodeResourceList(resources.capacity()), ...(await hugePages()) }),
        allocatable: async () => ({ ...nodeResourceList(resources.allocatable()), ...(await hugePages()) }),
        maxPods: options.maxPods,
        ...(options.podsPerCore !== undefined ? { podsPerCore: options.podsPerCore } : {}),
        machineID: async () => (await hostInfo()).machineID,
        systemUUID: async () => (await hostInfo()).systemUUID,
        bootID: async () => (await hostInfo()).bootID,
      }),
      versionInfo({
        kernelVersion: async () => (await hostInfo()).kernelVersion,
        osImage: async () => (await hostInfo()).osImage,
        // Asked once the runtime answers, then kept (it does not change while the kubelet runs).
        containerRuntimeVersion: async () => {
          if (runtimeVersion === undefined) {
            const v = await cri.runtime.version({ version: 'v1' }, { timeoutMs: 5_000 });
            runtimeVersion = `${v.runtimeName}://${genericVersion(v.runtimeVersion)}`;
          }
          return runtimeVersion;
        },
        kubeletVersion: options.kubeletVersion,
      }),
      daemonEndpoints(() => options.kubeletPort),
      images(async () => {
        const { images: list } = await cri.image.listImages({});
        return list.map((i) => ({ repoTags: i.repoTags, repoDigests: i.repoDigests, sizeBytes: Number(i.size) || 0 }));
      }, options.maxImages),
      platformInfo(),
      runtimeHandlers(() => options.runtimeState.runtimeHandlers()),
      nodeFeatures(() => options.runtimeState.runtimeFeatures()),
      memoryPressureCondition(() => options.eviction.isUnderMemoryPressure(), { clock, recorder }),
      diskPressureCondition(() => options.eviction.isUnderDiskPressure(), { clock, recorder }),
      pidPressureCondition(() => options.eviction.isUnderPIDPressure(), { clock, recorder }),
      readyCondition({
        clock,
        recorder,
        runtimeErrors: () => options.runtimeState.runtimeErrors(),
        networkErrors: () => options.runtimeState.networkErrors(),
        ...(options.shutdownErrors !== undefined ? { shutdownErrors: options.shutdownErrors } : {}),
        localStorageCapacityIsolation: options.localStorageCapacityIsolation,
        logger: options.logger,
      }),
    ],
    logger: options.logger,
  });
}

/**
 * The node as this kubelet builds it (upstream initialNode, which ends with setNodeStatus): what it
 * registers in API mode and what admission weighs pods against when there is no API Node.
 */
export async function buildLocalNode(
  nodeName: string,
  config: Pick<KubeletConfiguration, 'registerWithTaints' | 'enableControllerAttachDetach' | 'providerID'>,
  flags: Pick<KubeletFlags, 'nodeLabels'>,
  nodeStatus: Pick<NodeStatusManager, 'setNodeStatus'>,
): Promise<Node> {
  const node = initialNode({
    nodeName,
    nodeLabels: flags.nodeLabels,
    registerWithTaints: config.registerWithTaints ?? [],
    enableControllerAttachDetach: config.enableControllerAttachDetach,
    ...(config.providerID !== undefined && config.providerID !== '' ? { providerID: config.providerID } : {}),
  });
  await nodeStatus.setNodeStatus(node);
  return node;
}

/**
 * The runtime's version as upstream reports it (apimachinery's ParseGeneric, then String): the
 * numeric components, a leading `v` dropped, a `-pre`/`+build` suffix kept only when it has the
 * semver shape (`1.6.20~ds1` → `1.6.20`, `2.2.9+unknown` stays). Unparsable text is kept as it is.
 */
export function genericVersion(version: string): string {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$/.exec(version);
  if (m === null) return version;
  const extra = m[2] ?? '';
  const semverExtra = /^(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.test(extra);
  return `${m[1] ?? ''}${semverExtra ? extra : ''}`;
}

/**
 * kubelet-ts addition on the read-only port: `GET /node` returns the v1 Node the kubelet would post
 * to the API server, so standalone nodes show their conditions, capacity and versions.
 */
export function installNodeRoute(router: Pick<Router, 'get'>, nodeStatus: Pick<NodeStatusManager, 'getNode'>): void {
  router.get('/node', async (_req, res) => sendJson(res, 200, await nodeStatus.getNode()));
}
