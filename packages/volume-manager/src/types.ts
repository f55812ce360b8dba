import type { Container, ObjectSource, Pod } from '@kubelet-ts/api';
import type { ContainerMount } from '@kubelet-ts/container-runtime';

// ConfigMapObject, SecretObject and their source are @kubelet-ts/api's, one shape for every consumer.
export type { ConfigMapObject, SecretObject } from '@kubelet-ts/api';

/**
 * Where configMap and secret volumes (and CSI nodePublishSecretRefs) get their objects:
 * standalone, a directory of manifests (createDirectoryObjectSource); in API mode, the API server
 * (@kubelet-ts/object-manager's createObjectSource). `undefined` means "not found".
 */
export type ConfigMapSecretSource = ObjectSource;

export interface ServiceAccountTokenRequest {
  audience: string;
  expirationSeconds: number;
}

/** Service account tokens for projected volumes (upstream token manager); injected by the kubelet. */
export interface TokenSource {
  getServiceAccountToken(pod: Pod, request: ServiceAccountTokenRequest): Promise<string>;
}

/** Disk usage of one volume, for eviction (upstream: emptyDir sizeLimit checks). */
export interface VolumeUsage {
  volumeName: string;
  /** Upstream plugin name (`kubernetes.io/empty-dir`). */
  pluginName: string;
  path: string;
  usedBytes: number;
  /** emptyDir sizeLimit, when set. */
  limitBytes?: number;
  /** True when usedBytes > limitBytes. */
  exceeded: boolean;
}

/** A volume the manager has set up (actual state of the world). */
export interface MountedVolume {
  podUID: string;
  volumeName: string;
  pluginName: string;
  path: string;
  /** True when the entry was rebuilt from disk after a restart and not set up by this process yet. */
  reconstructed: boolean;
}

/**
 * The volume manager (upstream VolumeManager). Structurally it implements pod-lifecycle's
 * VolumeProvider (waitForAttachAndMount, getMountsForContainer, teardownPod).
 */
export interface VolumeManager {
  /** Adds the pod to the desired state and resolves once all its volumes are set up; rejects with the FailedMount message after `waitTimeoutMs`. */
  waitForAttachAndMount(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** The host paths to mount into one container (subPaths resolved safely and bind-mounted). */
  getMountsForContainer(pod: Pod, container: Container): Promise<ContainerMount[]>;
  /** Unmounts and removes every volume (and subPath bind mount) of the pod; call once its containers stopped. */
  teardownPod(uid: string): Promise<void>;
  /** Disk usage of the pod's emptyDir volumes against their sizeLimit. */
  getVolumeUsage(uid: string): Promise<VolumeUsage[]>;
  /** The actual state: every volume set up (or rebuilt from disk) for the pod, or for all pods. */
  getMountedVolumes(uid?: string): MountedVolume[];
  /** Pod UIDs found on disk with volumes after a restart (for orphan cleanup once sources are ready). */
  getReconstructedPodUIDs(): string[];
  /** Rebuilds the actual state from disk and mountinfo, mounting nothing. Safe to call more than once. */
  reconstruct(): Promise<void>;
  /** Runs the reconciler (periodic re-sync of configMap/secret/downwardAPI/projected contents) until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/** How to reach one CSI driver's node service. */
export interface CsiDriverInfo {
  /** `unix:///path/csi.sock` or a plain socket path. */
  endpoint: string;
  /** Upstream CSIDriver.spec.podInfoOnMount: pass pod name/namespace/uid/service account in volume_context. */
  podInfoOnMount?: boolean;
}

/** Finds CSI drivers by name (standalone: a configured map; later: plugin registration). */
export interface CsiDriverRegistry {
  get(driverName: string): CsiDriverInfo | undefined;
}
