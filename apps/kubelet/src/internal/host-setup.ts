/**
 * The kubelet's duties towards its host at start-up, as upstream 1.34 does them: refuse to run with swap
 * on (failSwapOn), check or set the kernel tunables it depends on (protectKernelDefaults), and raise its
 * own open-file limit (maxOpenFiles); and refuse FlexVolume drivers in volumePluginDir, which kubelet-ts
 * does not run. Upstream: cmd/kubelet/app/server.go and
 * pkg/kubelet/cm/container_manager_linux.go (NewContainerManager, setupKernelTunables).
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import type { Logger } from '@kubelet-ts/common';
import { defineError, errorMessage } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';

export type HostSetupErrorCode =
  /** Swap is on and failSwapOn is true. */
  | 'SWAP_ON'
  /** /proc/swaps could not be read. */
  | 'SWAP_UNKNOWN'
  /** protectKernelDefaults is true and a kernel tunable differs from what the kubelet needs. */
  | 'KERNEL_DEFAULTS'
  /** volumePluginDir holds FlexVolume drivers. */
  | 'FLEXVOLUME';

/** Why the host is not fit for the kubelet; the message is upstream's. */
export class HostSetupError extends defineError<HostSetupErrorCode>('HostSetupError', { defaultCode: 'SWAP_ON' }) {}

/** What the host duties touch, injected so that tests use fakes. */
export interface HostAccess {
  readFile(path: string): Promise<string>;
  writeFile(path: string, data: string): Promise<void>;
  /** The names in a directory. */
  readDir(path: string): Promise<string[]>;
  /** Runs a program; rejects when it cannot be run or exits non-zero. */
  exec(file: string, args: readonly string[]): Promise<void>;
  /** The kubelet's own pid. */
  pid: number;
}

export const realHost: HostAccess = {
  readFile: (path) => fs.readFile(path, 'utf8'),
  writeFile: (path, data) => fs.writeFile(path, data),
  readDir: (path) => fs.readdir(path),
  exec: (file, args) =>
    new Promise((resolve, reject) => {
      execFile(file, [...args], { timeout: 10_000 }, (err, _stdout, stderr) =>
        err === null ? resolve() : reject(new Error(`${file}: ${stderr.trim() || err.message}`, { cause: err })),
      );
    }),
  pid: process.pid,
};

/** The tunables upstream's setupKernelTunables wants (component-helpers/node/util/sysctl), under /proc/sys. */
export const KERNEL_TUNABLES: ReadonlyArray<readonly [string, number]> = [
  ['vm/overcommit_memory', 1],
  ['vm/panic_on_oom', 0],
  ['kernel/panic', 10],
  ['kernel/panic_on_oops', 1],
  ['kernel/keys/root_maxkeys', 1_000_000],
  ['kernel/keys/root_maxbytes', 25_000_000],
];

const isNotFound = (err: unknown): boolean => typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT';

/**
 * failSwapOn (upstream 1.34): swap is on when /proc/swaps has more than its header line (a missing file
 * means off). With swap on and failSwapOn the kubelet does not start; with failSwapOn false and no
 * memorySwap.swapBehavior, containers get no swap (NoSwap), which upstream logs.
 */
export async function checkSwap(
  config: Pick<KubeletConfiguration, 'failSwapOn' | 'memorySwap'>,
  host: Pick<HostAccess, 'readFile'>,
  logger: Logger,
): Promise<void> {
  // NodeSwap is GA and locked on in 1.34.
  if (!config.failSwapOn && (config.memorySwap?.swapBehavior ?? '') === '') {
    logger.info('NoSwap is set due to memorySwapBehavior not specified', { memorySwapBehavior: '', FailSwapOn: false });
  }
  let text: string;
  try {
    text = await host.readFile('/proc/swaps');
  } catch (err) {
    if (isNotFound(err)) {
      logger.info('File does not exist, assuming that swap is disabled', { path: '/proc/swaps' });
      return;
    }
    throw new HostSetupError('SWAP_UNKNOWN', `failed to determine if swap is on: ${errorMessage(err)}`, { cause: err });
  }
  const contents = text.trim();
  if (contents.split('\n').length <= 1) return;
  logger.info('Swap is on', { '/proc/swaps contents': contents });
  if (config.failSwapOn) {
    throw new HostSetupError('SWAP_ON', 'running with swap on is not supported, please disable swap or set --fail-swap-on flag to false');
  }
}

/**
 * protectKernelDefaults: true refuses to start when a tunable differs (upstream KernelTunableError, every
 * difference in one error); false sets each one that differs (KernelTunableModify). Where the kernel does
 * not let the kubelet write (a user namespace, gVisor) that is a warning here: upstream fails unless
 * KubeletInUserNamespace is on, kubelet-ts goes on, as it does for oom_score_adj.
 */
export async function setupKernelTunables(
  protect: boolean,
  host: Pick<HostAccess, 'readFile' | 'writeFile'>,
  logger: Logger,
): Promise<void> {
  const errors: string[] = [];
  for (const [flag, expectedValue] of KERNEL_TUNABLES) {
    const path = `/proc/sys/${flag}`;
    let actualValue: number;
    try {
      actualValue = Number.parseInt((await host.readFile(path)).trim(), 10);
    } catch (err) {
      if (protect) errors.push(errorMessage(err));
      else logger.warn('Failed to read kernel flag; continuing', { flag, err });
      continue;
    }
    if (actualValue === expectedValue) continue;
    if (protect) {
      errors.push(`invalid kernel flag: ${flag}, expected value: ${expectedValue}, actual value: ${actualValue}`);
      continue;
    }
    logger.info('Updating kernel flag', { flag, expectedValue, actualValue });
    try {
      await host.writeFile(path, `${expectedValue}\n`);
    } catch (err) {
      logger.warn('Updating kernel flag failed; continuing', { flag, expectedValue, err });
    }
  }
  // utilerrors.NewAggregate's message: the error alone, or "[a, b]".
  if (errors.length > 0)
    throw new HostSetupError('KERNEL_DEFAULTS', errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`);
}

/**
 * maxOpenFiles: upstream sets RLIMIT_NOFILE (soft and hard) to it and logs an error if it cannot. Node
 * has no setrlimit, so util-linux's prlimit does it for the kubelet's pid; a failure is a warning.
 */
export async function setMaxOpenFiles(maxOpenFiles: number, host: Pick<HostAccess, 'exec' | 'pid'>, logger: Logger): Promise<boolean> {
  try {
    await host.exec('prlimit', ['--pid', String(host.pid), `--nofile=${maxOpenFiles}:${maxOpenFiles}`]);
    return true;
  } catch (err) {
    logger.warn('Failed to set rlimit on max file handles', { maxOpenFiles, err });
    return false;
  }
}

/**
 * volumePluginDir: upstream probes it for FlexVolume drivers (`<vendor>~<driver>` directories). kubelet-ts
 * has none, which is upstream's behaviour for a directory without drivers (or none at all); a driver
 * there is refused rather than silently not run.
 */
export async function checkVolumePluginDir(dir: string, host: Pick<HostAccess, 'readDir'>): Promise<void> {
  let names: string[];
  try {
    names = await host.readDir(dir);
  } catch (err) {
    if (isNotFound(err)) return;
    throw new HostSetupError('FLEXVOLUME', `volumePluginDir ${dir}: ${errorMessage(err)}`, { cause: err });
  }
  const drivers = names.filter((name) => name.includes('~')).sort();
  if (drivers.length > 0) {
    throw new HostSetupError(
      'FLEXVOLUME',
      `volumePluginDir ${dir}: kubelet-ts does not support FlexVolume drivers yet (found ${drivers.join(', ')})`,
    );
  }
}

/** The host duties in upstream's order; throws HostSetupError when the kubelet must not start. */
export async function setupHost(
  config: Pick<KubeletConfiguration, 'failSwapOn' | 'memorySwap' | 'protectKernelDefaults' | 'maxOpenFiles' | 'volumePluginDir'>,
  logger: Logger,
  host: HostAccess = realHost,
): Promise<void> {
  await checkSwap(config, host, logger);
  await checkVolumePluginDir(config.volumePluginDir, host);
  await setupKernelTunables(config.protectKernelDefaults === true, host, logger);
  await setMaxOpenFiles(config.maxOpenFiles, host, logger);
}
