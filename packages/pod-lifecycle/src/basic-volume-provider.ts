import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Container, Pod, Volume } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { ContainerMount } from '@kubelet-ts/container-runtime';
import { PodLifecycleError } from './errors.js';
import { podDir } from './internal/pod-dirs.js';
import type { VolumeProvider } from './types.js';

export interface BasicVolumeProviderOptions {
  /** The kubelet's --root-dir. */
  rootDir: string;
  logger?: Logger;
}

/** Upstream plugin directory name of emptyDir volumes. */
const EMPTY_DIR_PLUGIN = 'kubernetes.io~empty-dir';

function volumeType(volume: Volume): string {
  for (const key of Object.keys(volume)) {
    if (key !== 'name' && (volume as Record<string, unknown>)[key] !== undefined) return key;
  }
  return 'unknown';
}

const volumeError = (message: string): PodLifecycleError => new PodLifecycleError('VolumeError', message);

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Upstream hostPathTypeChecker: the checks (and creations) of hostPath.type. */
async function checkHostPath(path: string, type: string | undefined): Promise<void> {
  const info = await stat(path).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  switch (type ?? '') {
    case '':
      return;
    case 'DirectoryOrCreate':
      if (info === undefined) {
        await mkdir(path, { recursive: true, mode: 0o755 });
        return;
      }
      if (!info.isDirectory()) throw volumeError(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'Directory':
      if (info === undefined || !info.isDirectory()) throw volumeError(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'FileOrCreate':
      if (info === undefined) {
        const handle = await open(path, constants.O_CREAT | constants.O_WRONLY, 0o644);
        await handle.close();
        return;
      }
      if (!info.isFile()) throw volumeError(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'File':
      if (info === undefined || !info.isFile()) throw volumeError(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'Socket':
      if (info === undefined || !info.isSocket()) throw volumeError(`hostPath type check failed: ${path} is not a socket file`);
      return;
    case 'CharDevice':
      if (info === undefined || !info.isCharacterDevice()) throw volumeError(`hostPath type check failed: ${path} is not a character device`);
      return;
    case 'BlockDevice':
      if (info === undefined || !info.isBlockDevice()) throw volumeError(`hostPath type check failed: ${path} is not a block device`);
      return;
    default:
      throw volumeError(`hostPath type ${JSON.stringify(type)} is not supported`);
  }
}

const PROPAGATION: Record<string, ContainerMount['propagation']> = {
  None: 'private',
  HostToContainer: 'host-to-container',
  Bidirectional: 'bidirectional',
};

/**
 * Resolves `subPath` inside `base`, refusing anything that escapes it: absolute paths, `..`
 * segments, and symlinks that lead outside (upstream subpath checks). Creates the subPath
 * directory when it does not exist, as the kubelet does.
 */
async function resolveSubPath(base: string, subPath: string): Promise<string> {
  if (isAbsolute(subPath)) throw volumeError(`subPath ${JSON.stringify(subPath)} must be a relative path`);
  if (subPath.split(/[\\/]/).includes('..')) throw volumeError(`subPath ${JSON.stringify(subPath)} must not contain '..'`);
  const target = join(base, subPath);
  const exists = await lstat(target).then(
    () => true,
    (err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    },
  );
  const realBase = await realpath(base);
  if (!exists) {
    // Make it step by step so that no existing symlink on the way leads us outside.
    let current = realBase;
    for (const part of subPath.split(/[\\/]/).filter((p) => p !== '' && p !== '.')) {
      const next = join(current, part);
      await mkdir(next, { mode: 0o750 }).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      });
      current = await realpath(next);
      if (current !== realBase && !current.startsWith(realBase + sep)) {
        throw volumeError(`subPath ${JSON.stringify(subPath)} resolves to ${current}, outside of the volume ${realBase}`);
      }
    }
  }
  const real = await realpath(target);
  const rel = relative(realBase, real);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw volumeError(`subPath ${JSON.stringify(subPath)} resolves to ${real}, outside of the volume ${realBase}`);
  }
  return real;
}

/**
 * A small VolumeProvider for users of this package alone (the kubelet uses
 * @kubelet-ts/volume-manager): emptyDir on disk and hostPath (with type checks), readOnly and
 * subPath. Other volume types fail the containers that mount them with "volume type X not
 * supported yet" (CreateContainerConfigError).
 */
export function createBasicVolumeProvider(options: BasicVolumeProviderOptions): VolumeProvider {
  const logger = options.logger ?? noopLogger;
  const emptyDirPath = (uid: string, name: string): string => join(podDir(options.rootDir, uid), 'volumes', EMPTY_DIR_PLUGIN, name);

  const volumePath = (pod: Pod, volume: Volume): string => {
    if (volume.emptyDir !== undefined) {
      const medium = volume.emptyDir.medium ?? '';
      if (medium !== '') throw volumeError(`volume type emptyDir with medium ${JSON.stringify(medium)} not supported yet`);
      return emptyDirPath(pod.metadata.uid, volume.name);
    }
    if (volume.hostPath !== undefined) return volume.hostPath.path;
    throw volumeError(`volume type ${volumeType(volume)} not supported yet`);
  };

  return {
    async waitForAttachAndMount(pod) {
      for (const volume of pod.spec.volumes ?? []) {
        if (volume.emptyDir !== undefined && (volume.emptyDir.medium ?? '') === '') {
          await mkdir(emptyDirPath(pod.metadata.uid, volume.name), { recursive: true, mode: 0o777 });
        } else if (volume.hostPath !== undefined) {
          try {
            await checkHostPath(volume.hostPath.path, volume.hostPath.type);
          } catch (err) {
            throw err instanceof PodLifecycleError ? err : volumeError(`hostPath ${volume.hostPath.path}: ${errorMessage(err)}`);
          }
        } else {
          // Reported per container (CreateContainerConfigError) when a container mounts it.
          logger.debug('Volume type not supported yet', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, volume: volume.name, type: volumeType(volume) });
        }
      }
    },

    async getMountsForContainer(pod: Pod, container: Container) {
      const mounts: ContainerMount[] = [];
      for (const vm of container.volumeMounts ?? []) {
        const volume = pod.spec.volumes?.find((v) => v.name === vm.name);
        if (volume === undefined) throw volumeError(`cannot find volume ${JSON.stringify(vm.name)} to mount into container ${JSON.stringify(container.name)}`);
        let hostPath = volumePath(pod, volume);
        if (vm.subPathExpr !== undefined && vm.subPathExpr !== '') throw volumeError('volumeMounts[].subPathExpr not supported yet');
        if (vm.subPath !== undefined && vm.subPath !== '') hostPath = await resolveSubPath(hostPath, vm.subPath);
        const propagation = vm.mountPropagation !== undefined ? PROPAGATION[vm.mountPropagation] : undefined;
        mounts.push({
          containerPath: vm.mountPath,
          hostPath,
          readOnly: vm.readOnly === true,
          ...(propagation !== undefined ? { propagation } : {}),
        });
      }
      return mounts;
    },

    async teardownPod(uid) {
      // emptyDir content dies with the pod; hostPath content is the node's and stays.
      await rm(join(podDir(options.rootDir, uid), 'volumes', EMPTY_DIR_PLUGIN), { recursive: true, force: true });
    },
  };
}
