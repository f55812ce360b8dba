// Upstream kuberuntime_container.go: removeContainer, purgeInitContainers, pruneInitContainersBeforeStart.
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { isNotFound } from '@kubelet-ts/cri-client';
import { decodeContainerLabels } from '../labels.js';
import type { RuntimeContext } from './context.js';
import { removeLegacyLogSymlink } from './log-symlink.js';

/**
 * Removes a container and its log files: the current one and those rotated next to it
 * (`<log>.<timestamp>[.gz]`, as the log manager's Clean does upstream in removeContainerLog), and
 * its symlink in the containers log dir.
 */
export async function removeContainer(ctx: RuntimeContext, containerId: string): Promise<void> {
  try {
    const status = (await ctx.runtime.containerStatus({ containerId, verbose: false })).status;
    if (status !== null) {
      if (status.logPath !== '') await removeLogFiles(status.logPath);
      await removeLegacyLogSymlink(ctx.containerLogsDir, decodeContainerLabels(status.labels), containerId);
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await ctx.runtime.removeContainer({ containerId }, { ignoreNotFound: true });
}

/** Removes a container's log file and its rotated files; missing files are fine. */
async function removeLogFiles(logPath: string): Promise<void> {
  const dir = path.dirname(logPath);
  const rotatedPrefix = `${path.basename(logPath)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  const rotated = names.filter((name) => name.startsWith(rotatedPrefix)).map((name) => path.join(dir, name));
  await Promise.all([logPath, ...rotated].map((file) => unlink(file).catch(() => undefined)));
}

async function removeInitContainer(ctx: RuntimeContext, c: { id: string; name: string }): Promise<void> {
  await removeContainer(ctx, c.id).catch((err: unknown) =>
    ctx.logger.warn('Failed to remove pod init container', { containerName: c.name, containerID: c.id, err: errorMessage(err) }),
  );
}

/** A new sandbox restarts initialization: remove every old init container instance (upstream purgeInitContainers). */
export async function purgeInitContainers(ctx: RuntimeContext, pod: Pod, status: RuntimePodStatus): Promise<void> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  for (const c of status.containers) {
    if (!names.has(c.name) || c.state === 'running') continue;
    await removeInitContainer(ctx, c);
  }
}

/** Keep only the newest exited instance of each init container (upstream pruneInitContainersBeforeStart). */
export async function pruneInitContainersBeforeStart(ctx: RuntimeContext, pod: Pod, status: RuntimePodStatus): Promise<void> {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  const seen = new Set<string>();
  for (const c of status.containers) {
    if (!names.has(c.name) || c.state !== 'exited') continue;
    if (!seen.has(c.name)) {
      seen.add(c.name);
      continue;
    }
    await removeInitContainer(ctx, c);
  }
}
