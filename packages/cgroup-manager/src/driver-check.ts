import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { containerdConfigFromInfo } from '@kubelet-ts/cri-client';
import type { CgroupDriver } from './cgroup-name.js';

/** The two CRI calls the check needs (structurally cri-client's RuntimeService). */
export interface RuntimeDriverSource {
  runtimeConfig(): Promise<{ linux?: { cgroupDriver?: string | number | null } | null }>;
  status(): Promise<{ info?: Record<string, string> | null }>;
}

export type CgroupDriverCheck =
  | { result: 'match'; runtimeDriver: CgroupDriver; source: 'RuntimeConfig' | 'runtime config' }
  | { result: 'mismatch'; runtimeDriver: CgroupDriver; source: 'RuntimeConfig' | 'runtime config'; message: string }
  | { result: 'unknown'; message: string };

function driverFromCri(value: string | number | null | undefined): CgroupDriver | undefined {
  if (value === 'SYSTEMD' || value === 0) return 'systemd';
  if (value === 'CGROUPFS' || value === 1) return 'cgroupfs';
  return undefined;
}

/** What containerd's CRI config says about the default runtime's `SystemdCgroup`, when the status info has it. */
export function driverFromContainerdInfo(info: Record<string, string> | null | undefined): CgroupDriver | undefined {
  const config = containerdConfigFromInfo(info);
  if (config === undefined) return undefined;
  const runtimes = config.containerd?.runtimes ?? {};
  const name = config.containerd?.defaultRuntimeName ?? 'runc';
  const flag = runtimes[name]?.options?.['SystemdCgroup'];
  if (typeof flag === 'boolean') return flag ? 'systemd' : 'cgroupfs';
  if (config.systemdCgroup !== undefined) return config.systemdCgroup ? 'systemd' : 'cgroupfs';
  // runc's default when SystemdCgroup is unset.
  return runtimes[name] !== undefined ? 'cgroupfs' : undefined;
}

function mismatchMessage(configured: CgroupDriver, runtime: CgroupDriver): string {
  return (
    `cgroup driver mismatch: the kubelet is configured with cgroupDriver ${JSON.stringify(configured)} but the container runtime uses ${JSON.stringify(runtime)}; ` +
    `pods will fail to start or end up outside their QoS cgroups. Set cgroupDriver: ${runtime} in the kubelet configuration` +
    (runtime === 'cgroupfs'
      ? " (or SystemdCgroup = true in containerd's runc options)"
      : " (or SystemdCgroup = false in containerd's runc options)")
  );
}

/**
 * Compares the kubelet's cgroup driver with the runtime's (upstream: the kubelet adopts the
 * driver CRI RuntimeConfig reports). containerd 1.6 answers UNIMPLEMENTED; then the runtime's own
 * config from its verbose Status is used; when neither tells, the result is `unknown` and a
 * warning says the driver cannot be checked.
 */
export async function checkCgroupDriver(
  configured: CgroupDriver,
  runtime: RuntimeDriverSource,
  logger: Logger = noopLogger,
): Promise<CgroupDriverCheck> {
  let runtimeDriver: CgroupDriver | undefined;
  let source: 'RuntimeConfig' | 'runtime config' = 'RuntimeConfig';
  try {
    runtimeDriver = driverFromCri((await runtime.runtimeConfig()).linux?.cgroupDriver);
  } catch (err) {
    logger.debug('CRI RuntimeConfig failed, falling back to the runtime status config', { err: errorMessage(err) });
  }
  if (runtimeDriver === undefined) {
    source = 'runtime config';
    try {
      runtimeDriver = driverFromContainerdInfo((await runtime.status()).info);
    } catch (err) {
      logger.debug('CRI Status failed', { err: errorMessage(err) });
    }
  }
  if (runtimeDriver === undefined) {
    const message = `cannot check the cgroup driver: the runtime answers neither RuntimeConfig nor reports SystemdCgroup in its status; make sure it uses ${JSON.stringify(configured)}`;
    logger.warn(message);
    return { result: 'unknown', message };
  }
  if (runtimeDriver !== configured) {
    const message = mismatchMessage(configured, runtimeDriver);
    logger.error(message, { cgroupDriver: configured, runtimeCgroupDriver: runtimeDriver, source });
    return { result: 'mismatch', runtimeDriver, source, message };
  }
  logger.info('The runtime uses the same cgroup driver', { cgroupDriver: configured, source });
  return { result: 'match', runtimeDriver, source };
}
