// Upstream kuberuntime legacy.go: the /var/log/containers symlinks cluster logging agents read.
import { lstat, readdir, stat, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import type { RuntimeContext } from './context.js';

/** Upstream's default containers log dir (kubelet.ContainerLogsDir). */
export const DEFAULT_CONTAINER_LOGS_DIR = '/var/log/containers';

const LOG_SUFFIX = '.log';
/** Upstream ext4MaxFileNameLen: the name, suffix included, is cut to 255 bytes. */
const MAX_FILE_NAME_LENGTH = 255;

/**
 * Upstream logSymlink: `<dir>/<pod>_<namespace>_<container>-<containerID>.log`, the part before the
 * suffix cut so that the whole name fits 255 bytes (the container ID is then cut first).
 */
export function legacyLogSymlink(
  containerLogsDir: string,
  podName: string,
  podNamespace: string,
  containerName: string,
  containerId: string,
): string {
  let name = `${podName}_${podNamespace}_${containerName}-${containerId}`;
  const max = MAX_FILE_NAME_LENGTH - LOG_SUFFIX.length;
  // Names are DNS labels and subdomains (ASCII), so characters are bytes, as Go's cut counts them.
  if (name.length > max) name = name.slice(0, max);
  return path.join(containerLogsDir, `${name}${LOG_SUFFIX}`);
}

/** Upstream getContainerIDFromLegacyLogSymlink: what follows the last '-' before `.log`, at least 6 characters. */
export function containerIdFromLegacyLogSymlink(file: string): string | undefined {
  const last = path.basename(file).split('-').at(-1) ?? '';
  if (!last.endsWith(LOG_SUFFIX)) return undefined;
  const id = last.slice(0, -LOG_SUFFIX.length);
  return id.length < 6 ? undefined : id;
}

const isNotExist = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/**
 * After a start, as upstream startContainer: the symlink to the container's log, only when the log
 * exists (else it would dangle until GC). A failure is logged, never fails the start.
 */
export async function createLegacyLogSymlink(
  ctx: RuntimeContext,
  target: { pod: Pod; containerName: string; containerId: string; logPath: string },
): Promise<void> {
  const { pod, containerName, containerId, logPath } = target;
  // No log file for the runtime to write (no log directory): nothing to link to.
  if (!path.isAbsolute(logPath)) return;
  const link = legacyLogSymlink(ctx.containerLogsDir, pod.metadata.name, pod.metadata.namespace, containerName, containerId);
  try {
    await stat(logPath);
  } catch (err) {
    if (isNotExist(err)) return;
  }
  try {
    await symlink(logPath, link);
  } catch (err) {
    ctx.logger.error('Failed to create legacy symbolic link', {
      path: link,
      containerID: containerId,
      containerLogPath: logPath,
      err: errorMessage(err),
    });
  }
}

/** Upstream removeContainerLog's last step: the container's symlink goes with it; a missing one is fine. */
export async function removeLegacyLogSymlink(
  containerLogsDir: string,
  labels: { podName: string; podNamespace: string; containerName: string },
  containerId: string,
): Promise<void> {
  const link = legacyLogSymlink(containerLogsDir, labels.podName, labels.podNamespace, labels.containerName, containerId);
  try {
    await unlink(link);
  } catch (err) {
    if (!isNotExist(err)) throw err;
  }
}

/**
 * Upstream evictContainers' last step: dangling `*.log` symlinks go, except those of a container
 * that has not exited (its log may be between rotation's rename and reopen). A symlink whose
 * container the runtime cannot tell about goes too, as upstream.
 */
export async function removeDeadLogSymlinks(deps: {
  containerLogsDir: string;
  runtimeService: RuntimeService;
  logger: Logger;
}): Promise<void> {
  const { containerLogsDir, runtimeService, logger } = deps;
  let names: string[];
  try {
    names = await readdir(containerLogsDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith(LOG_SUFFIX)) continue;
    const file = path.join(containerLogsDir, name);
    try {
      await stat(file);
      continue; // the log is there
    } catch (err) {
      if (!isNotExist(err)) continue;
    }
    // stat follows the link; a missing file (not a dangling link) has nothing to remove.
    const isLink = await lstat(file).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    if (!isLink) continue;
    const id = containerIdFromLegacyLogSymlink(name);
    if (id !== undefined) {
      try {
        const status = (await runtimeService.containerStatus({ containerId: id, verbose: false })).status;
        if (status === null) continue;
        if (status.state !== 'CONTAINER_EXITED') {
          logger.debug('Container is still running, not removing symlink', { containerID: id, path: file });
          continue;
        }
      } catch (err) {
        logger.info('Error getting ContainerStatus for containerID', { containerID: id, err: errorMessage(err) });
      }
    }
    await unlink(file).catch((err: unknown) =>
      logger.error('Failed to remove container log dead symlink', { path: file, err: errorMessage(err) }),
    );
  }
}
