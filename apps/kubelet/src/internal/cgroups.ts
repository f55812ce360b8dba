import { checkCgroupDriver } from '@kubelet-ts/cgroup-manager';
import type { ContainerManager } from '@kubelet-ts/cgroup-manager';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';

/**
 * Creates the pod cgroup hierarchy. A hierarchy that cannot be created is logged, not fatal:
 * pods then fail to sync with that reason (the cgroup manager retries), and the kubelet keeps
 * serving (upstream exits instead).
 */
export async function startContainerManager(containerManager: Pick<ContainerManager, 'start'>, logger: Logger): Promise<void> {
  try {
    await containerManager.start();
  } catch (err) {
    logger.error('Failed to create the pod cgroup hierarchy; pods cannot start until it can be created', { err: errorMessage(err) });
  }
}

/** Once the runtime answers: warn plainly when its cgroup driver differs from ours (a common node failure). */
export function checkRuntimeCgroupDriver(
  containerManager: Pick<ContainerManager, 'cgroupManager'>,
  runtime: RuntimeService,
  logger: Logger,
): void {
  void checkCgroupDriver(
    containerManager.cgroupManager.driver,
    { runtimeConfig: () => runtime.runtimeConfig({}), status: () => runtime.status({ verbose: true }) },
    logger,
  );
}
