export { VolumeError } from './errors.js';
export type { VolumeErrorCode } from './errors.js';

export type {
  ConfigMapObject,
  SecretObject,
  ConfigMapSecretSource,
  ServiceAccountTokenRequest,
  TokenSource,
  VolumeUsage,
  MountedVolume,
  VolumeManager,
  CsiDriverInfo,
  CsiDriverRegistry,
} from './types.js';

export { createVolumeManager } from './volume-manager.js';
export type { VolumeManagerOptions } from './volume-manager.js';

export { createSystemMounter, isMountPoint } from './mounter.js';
export type { Mounter, SystemMounterOptions } from './mounter.js';

export { writeAtomic, validatePayloadPath } from './atomic-writer.js';
export type { FileProjection, AtomicWriteOptions } from './atomic-writer.js';

export { openSubPath, validateSubPath } from './subpath.js';
export type { OpenSubPath } from './subpath.js';

export { createDirectoryObjectSource } from './directory-source.js';
export type { DirectoryObjectSource, DirectoryObjectSourceOptions } from './directory-source.js';

export { createCsiNodeClient, createStaticCsiDriverRegistry, NODE_CAPABILITY } from './csi-client.js';
export type {
  CsiNodeClient,
  CsiNodeClientOptions,
  CsiVolumeStats,
  NodeInfo,
  NodeGetVolumeStatsRequest,
  NodePublishVolumeRequest,
  NodeStageVolumeRequest,
  NodeUnpublishVolumeRequest,
  NodeUnstageVolumeRequest,
} from './csi-client.js';

export { createCsiPluginRegistry, highestSupportedCsiVersion } from './csi-registration.js';
export type { CsiPluginRegistry, CsiPluginRegistryOptions, RegisteredCsiDriver } from './csi-registration.js';

export { PLUGIN_NAMES, escapePluginName, podVolumeDir, subPathMountDir, csiEphemeralVolumeHandle, csiStagingPath } from './paths.js';
export type { PluginName } from './paths.js';
