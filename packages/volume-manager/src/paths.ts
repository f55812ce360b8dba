import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** Upstream plugin names and their on-disk directory names (`kubernetes.io/empty-dir` → `kubernetes.io~empty-dir`). */
export const PLUGIN_NAMES = {
  emptyDir: 'kubernetes.io/empty-dir',
  hostPath: 'kubernetes.io/host-path',
  configMap: 'kubernetes.io/configmap',
  secret: 'kubernetes.io/secret',
  downwardAPI: 'kubernetes.io/downward-api',
  projected: 'kubernetes.io/projected',
  csi: 'kubernetes.io/csi',
} as const;

export type PluginName = (typeof PLUGIN_NAMES)[keyof typeof PLUGIN_NAMES];

/** `kubernetes.io/empty-dir` → `kubernetes.io~empty-dir` (upstream EscapeQualifiedName). */
export const escapePluginName = (plugin: string): string => plugin.replace(/\//g, '~');
export const unescapePluginName = (dir: string): string => dir.replace(/~/g, '/');

export const podDir = (rootDir: string, uid: string): string => join(rootDir, 'pods', uid);
export const podVolumesDir = (rootDir: string, uid: string): string => join(podDir(rootDir, uid), 'volumes');

/** `<root>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>`. */
export const podVolumeDir = (rootDir: string, uid: string, plugin: string, volumeName: string): string =>
  join(podVolumesDir(rootDir, uid), escapePluginName(plugin), volumeName);

/** `<root>/pods/<uid>/volume-subpaths/<volume>/<container>/<index>`. */
export const subPathMountDir = (rootDir: string, uid: string, volumeName: string, containerName: string, index: number): string =>
  join(podDir(rootDir, uid), 'volume-subpaths', volumeName, containerName, String(index));

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Upstream makeVolumeHandle for CSI ephemeral inline volumes: `csi-<sha256(podUID + volumeName)>`. */
export const csiEphemeralVolumeHandle = (podUID: string, volumeName: string): string => `csi-${sha256(podUID + volumeName)}`;

/** `<root>/plugins/kubernetes.io/csi/<driver>/<sha256(volumeHandle)>/globalmount` (the staging path). */
export const csiStagingPath = (rootDir: string, driver: string, volumeHandle: string): string =>
  join(rootDir, 'plugins', 'kubernetes.io', 'csi', driver, sha256(volumeHandle), 'globalmount');
