import { applyPodDefaults } from '../defaults.js';
import type { NodeSystemInfo } from '../node.js';
import type { Container, Pod, PodSpec } from '../schemas.js';

export interface NewPodOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Containers; defaults to one container "app" running "busybox:1.36". */
  containers?: Array<Partial<Container> & { name: string }>;
  initContainers?: Array<Partial<Container> & { name: string }>;
  /** Any other spec fields (restartPolicy, volumes, hostNetwork…). */
  spec?: Partial<PodSpec>;
  /** Apply upstream defaults (default true), so the pod looks like one the kubelet receives. */
  defaults?: boolean;
}

/** A container with an image; anything else from `overrides`. */
export function newContainer(overrides: Partial<Container> & { name: string }): Container {
  return { image: 'busybox:1.36', ...overrides };
}

/** A small valid Pod for tests of other packages. */
export function newPod(options: NewPodOptions = {}): Pod {
  const name = options.name ?? 'test-pod';
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-${name}`,
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
    },
    spec: {
      ...options.spec,
      containers: (options.containers ?? [{ name: 'app' }]).map(newContainer),
      ...(options.initContainers !== undefined ? { initContainers: options.initContainers.map(newContainer) } : {}),
    },
  };
  return options.defaults === false ? pod : applyPodDefaults(pod);
}

/** A Node's nodeInfo as a Linux kubelet on containerd reports it; anything else from `overrides`. */
export function newNodeInfo(overrides: Partial<NodeSystemInfo> = {}): NodeSystemInfo {
  return {
    machineID: 'machine-id',
    systemUUID: 'system-uuid',
    bootID: 'boot-id',
    kernelVersion: '6.1.0',
    osImage: 'Debian GNU/Linux 12 (bookworm)',
    containerRuntimeVersion: 'containerd://1.6.20',
    kubeletVersion: 'v1.34.0',
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: 'amd64',
    ...overrides,
  };
}
