// Upstream pkg/kubelet/nodestatus/setters.go: each setter reads its providers and fills its part of the node.
import type { ContainerImage, Node, NodeCondition, NodeStatus, NodeSystemInfo, Quantity, ResourceList } from '@kubelet-ts/api';
import { quantityValue } from '@kubelet-ts/api';
import { goArch } from './platform.js';
import type { NodeStatusSetter } from './types.js';

type Provider<T> = () => T | Promise<T>;

function statusOf(node: Node): NodeStatus {
  node.status ??= {};
  return node.status;
}

const EMPTY_NODE_INFO: NodeSystemInfo = {
  machineID: '',
  systemUUID: '',
  bootID: '',
  kernelVersion: '',
  osImage: '',
  containerRuntimeVersion: '',
  kubeletVersion: '',
  kubeProxyVersion: '',
  operatingSystem: '',
  architecture: '',
};

/** The node's nodeInfo, made with Go's zero values when absent. */
function nodeInfoOf(node: Node): NodeSystemInfo {
  const status = statusOf(node);
  status.nodeInfo ??= { ...EMPTY_NODE_INFO };
  return status.nodeInfo;
}

/** Upstream NodeAddress (with --node-ip): an InternalIP per node IP, primary first, then the Hostname. */
export function nodeAddress(providers: { nodeIPs: Provider<readonly string[]>; hostname: Provider<string> }): NodeStatusSetter {
  return {
    name: 'NodeAddress',
    async set(node) {
      const ips = await providers.nodeIPs();
      const hostname = await providers.hostname();
      statusOf(node).addresses = [...ips.map((address) => ({ type: 'InternalIP', address })), { type: 'Hostname', address: hostname }];
    },
  };
}

export interface MachineInfoProviders {
  /** cpu, memory (and whatever else the machine has) as quantities; undefined while unknown. */
  capacity: Provider<ResourceList | undefined>;
  /** What pods may use: capacity less the reservations and the hard eviction thresholds. */
  allocatable: Provider<ResourceList | undefined>;
  /** `maxPods`: the `pods` resource of capacity and allocatable. */
  maxPods: number;
  /** `podsPerCore` (0 or unset: no limit): `pods` is then at most this many per core of the cpu capacity. */
  podsPerCore?: number;
  machineID?: Provider<string>;
  systemUUID?: Provider<string>;
  bootID?: Provider<string>;
}

/** Upstream MachineInfo's `pods`: maxPods, or fewer when podsPerCore × cores (NumCores, the cpu capacity) is less. */
function podsCapacity(maxPods: number, podsPerCore: number, cpu: Quantity | undefined): number {
  if (podsPerCore <= 0 || cpu === undefined) return maxPods;
  let cores: number;
  try {
    cores = Math.floor(quantityValue(cpu));
  } catch {
    return maxPods;
  }
  return Math.min(cores * podsPerCore, maxPods);
}

/** Upstream MachineInfo: capacity and allocatable (with `pods`), and the machine's identity in nodeInfo. */
export function machineInfo(providers: MachineInfoProviders): NodeStatusSetter {
  return {
    name: 'MachineInfo',
    async set(node) {
      const status = statusOf(node);
      const capacity = await providers.capacity();
      const pods = String(podsCapacity(providers.maxPods, providers.podsPerCore ?? 0, capacity?.['cpu']));
      const allocatable = await providers.allocatable();
      status.capacity = { ...capacity, pods };
      status.allocatable = { ...(allocatable ?? capacity), pods };
      const info = nodeInfoOf(node);
      if (providers.machineID !== undefined) info.machineID = await providers.machineID();
      if (providers.systemUUID !== undefined) info.systemUUID = await providers.systemUUID();
      if (providers.bootID !== undefined) info.bootID = await providers.bootID();
    },
  };
}

export interface VersionInfoProviders {
  kernelVersion: Provider<string>;
  osImage: Provider<string>;
  /** `<runtime name>://<runtime version>`, as the CRI Version call reports them. */
  containerRuntimeVersion: Provider<string>;
  kubeletVersion: string;
}

/** Upstream VersionInfo: kernel, OS image, runtime and kubelet versions (kubeProxyVersion stays empty, as upstream now). */
export function versionInfo(providers: VersionInfoProviders): NodeStatusSetter {
  return {
    name: 'VersionInfo',
    async set(node) {
      const info = nodeInfoOf(node);
      info.kernelVersion = await providers.kernelVersion();
      info.osImage = await providers.osImage();
      info.containerRuntimeVersion = await providers.containerRuntimeVersion();
      info.kubeletVersion = providers.kubeletVersion;
    },
  };
}

/** Upstream GoRuntime: the operating system and architecture the kubelet runs on. */
export function platformInfo(
  platform: { operatingSystem: string; architecture: string } = { operatingSystem: 'linux', architecture: goArch() },
): NodeStatusSetter {
  return {
    name: 'GoRuntime',
    set(node) {
      const info = nodeInfoOf(node);
      info.operatingSystem = platform.operatingSystem;
      info.architecture = platform.architecture;
    },
  };
}

/**
 * Upstream RuntimeHandlers: `status.runtimeHandlers` from the runtime's Status reply, each with its
 * recursive read-only mount and user namespace support (both always present, false when unknown).
 */
export function runtimeHandlers(
  handlers: Provider<readonly { name: string; features?: { recursiveReadOnlyMounts?: boolean; userNamespaces?: boolean } }[]>,
): NodeStatusSetter {
  return {
    name: 'RuntimeHandlers',
    async set(node) {
      statusOf(node).runtimeHandlers = (await handlers()).map((h) => ({
        name: h.name,
        features: {
          recursiveReadOnlyMounts: h.features?.recursiveReadOnlyMounts === true,
          userNamespaces: h.features?.userNamespaces === true,
        },
      }));
    },
  };
}

/**
 * Upstream NodeFeatures: `status.features.supplementalGroupsPolicy` once the runtime reported its
 * features (the kubelet passes the pod's policy to it); nothing before.
 */
export function nodeFeatures(features: Provider<{ supplementalGroupsPolicy?: boolean } | undefined>): NodeStatusSetter {
  return {
    name: 'NodeFeatures',
    async set(node) {
      const f = await features();
      if (f !== undefined) statusOf(node).features = { supplementalGroupsPolicy: f.supplementalGroupsPolicy === true };
    },
  };
}

/** Upstream DaemonEndpoints: the port of the kubelet's (authenticated) server; 0 when it serves none. */
export function daemonEndpoints(kubeletPort: Provider<number>): NodeStatusSetter {
  return {
    name: 'DaemonEndpoints',
    async set(node) {
      statusOf(node).daemonEndpoints = { kubeletEndpoint: { Port: await kubeletPort() } };
    },
  };
}

/** An image as the runtime lists it. */
export interface NodeImage {
  repoTags: readonly string[];
  repoDigests: readonly string[];
  sizeBytes: number;
}

/** Upstream MaxNamesPerImageInNodeStatus. */
const MAX_NAMES_PER_IMAGE = 5;

/** Upstream Images: the largest images first, at most `maxImages` of them (-1: all), each with up to 5 names (digests first). */
export function images(list: Provider<readonly NodeImage[]>, maxImages: number): NodeStatusSetter {
  return {
    name: 'Images',
    async set(node) {
      const sorted = [...(await list())].sort((a, b) => b.sizeBytes - a.sizeBytes);
      const kept = maxImages >= 0 ? sorted.slice(0, maxImages) : sorted;
      statusOf(node).images = kept.map((image): ContainerImage => ({
        names: [...image.repoDigests, ...image.repoTags].slice(0, MAX_NAMES_PER_IMAGE),
        sizeBytes: image.sizeBytes,
      }));
    },
  };
}

/** A condition as its producer reports it: the fields of a v1 NodeCondition (no others). */
export type NodeConditionInput = Pick<NodeCondition, 'type' | 'status' | 'lastHeartbeatTime' | 'lastTransitionTime' | 'reason' | 'message'>;

/**
 * Node conditions that another part of the kubelet computes with their times (kubelet-ts: the
 * eviction manager's MemoryPressure, DiskPressure and PIDPressure, as upstream's pressure-condition
 * setters would): each replaces the condition of its type, new types are appended.
 */
export function conditions(provider: Provider<readonly NodeConditionInput[]>): NodeStatusSetter {
  return {
    name: 'Conditions',
    async set(node) {
      const status = statusOf(node);
      const out = [...(status.conditions ?? [])];
      for (const condition of await provider()) {
        const i = out.findIndex((c) => c.type === condition.type);
        if (i >= 0) out[i] = { ...condition };
        else out.push({ ...condition });
      }
      status.conditions = out;
    },
  };
}
