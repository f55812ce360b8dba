import { nodeResourceList } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { EvictionManager } from '@kubelet-ts/eviction-manager';
import {
  conditions,
  createNodeStatus,
  daemonEndpoints,
  images,
  machineInfo,
  nodeAddress,
  platformInfo,
  readHostInfo,
  versionInfo,
} from '@kubelet-ts/node-status';
import type { HostInfo, NodeStatusManager } from '@kubelet-ts/node-status';
import type { Router } from '@kubelet-ts/server';
import { sendJson } from '@kubelet-ts/server';
import type { NodeResourceGetters } from './node-resources.js';

export interface KubeletNodeStatusOptions {
  nodeName: string;
  getNodeIPs: () => string[];
  kubeletVersion: string;
  /** `maxPods` and `nodeStatusMaxImages` of the configuration. */
  maxPods: number;
  maxImages: number;
  /** The port of the kubelet's authenticated server, 0 when it serves none (standalone). */
  kubeletPort: number;
  /** Node capacity and allocatable (the container manager's, the machine's until it computed them). */
  resources: NodeResourceGetters;
  eviction: Pick<EvictionManager, 'nodeConditions'>;
  cri: { runtime: Pick<RuntimeService, 'version'>; image: Pick<ImageService, 'listImages'> };
  logger: Logger;
  /** The machine's identity and OS (tests); read from the host once by default. */
  hostInfo?: () => Promise<HostInfo>;
}

/**
 * The node as the kubelet would post it in API mode: addresses from the node IPs, capacity and
 * allocatable from the cgroup manager (the machine's capacity until it computed them), the
 * machine's identity, the runtime's version and images, and eviction's pressure conditions.
 */
export function createKubeletNodeStatus(options: KubeletNodeStatusOptions): NodeStatusManager {
  const { resources, cri } = options;
  let host: Promise<HostInfo> | undefined;
  const hostInfo = (): Promise<HostInfo> => (host ??= (options.hostInfo ?? (() => readHostInfo()))());
  let runtimeVersion: string | undefined;
  return createNodeStatus({
    nodeName: options.nodeName,
    setters: [
      nodeAddress({ nodeIPs: options.getNodeIPs, hostname: () => options.nodeName }),
      machineInfo({
        capacity: () => nodeResourceList(resources.capacity()),
        allocatable: () => nodeResourceList(resources.allocatable()),
        maxPods: options.maxPods,
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
            runtimeVersion = `${v.runtimeName}://${v.runtimeVersion}`;
          }
          return runtimeVersion;
        },
        kubeletVersion: options.kubeletVersion,
      }),
      platformInfo(),
      daemonEndpoints(() => options.kubeletPort),
      images(async () => {
        const { images: list } = await cri.image.listImages({});
        return list.map((i) => ({ repoTags: i.repoTags, repoDigests: i.repoDigests, sizeBytes: Number(i.size) || 0 }));
      }, options.maxImages),
      conditions(() => options.eviction.nodeConditions()),
    ],
    logger: options.logger,
  });
}

/**
 * kubelet-ts addition on the read-only port: `GET /node` returns the v1 Node the kubelet would post
 * to the API server, so standalone nodes show their conditions, capacity and versions.
 */
export function installNodeRoute(router: Pick<Router, 'get'>, nodeStatus: Pick<NodeStatusManager, 'getNode'>): void {
  router.get('/node', async (_req, res) => sendJson(res, 200, await nodeStatus.getNode()));
}
