// Container log rotation: pkg/kubelet/logs/container_log_manager.go.
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { noopLogger, systemClock, errorMessage } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import { ContainerLogsError } from './errors.js';
import { COMPRESS_SUFFIX, TMP_SUFFIX, filterUnusedLogs, listRotatedFiles, rotationTimestamp } from './log-files.js';

/** Upstream defaults (KubeletConfiguration v1beta1). */
export const DEFAULT_CONTAINER_LOG_MAX_SIZE = 10 * 1024 * 1024;
export const DEFAULT_CONTAINER_LOG_MAX_FILES = 5;
export const DEFAULT_CONTAINER_LOG_MAX_WORKERS = 1;
export const DEFAULT_CONTAINER_LOG_MONITOR_INTERVAL_MS = 10_000;
/** Upstream validation: containerLogMonitorInterval must be at least 3s. */
export const MIN_CONTAINER_LOG_MONITOR_INTERVAL_MS = 3_000;

/** The CRI calls log rotation makes. */
export type LogRuntime = Pick<RuntimeService, 'listContainers' | 'containerStatus' | 'reopenContainerLog'>;

export interface ContainerLogManagerOptions {
  runtime: LogRuntime;
  /** containerLogMaxSize in bytes; negative disables rotation (upstream: a stub manager). Default 10Mi. */
  maxSize?: number;
  /** containerLogMaxFiles, > 1 (the current file counts). Default 5. */
  maxFiles?: number;
  /** containerLogMaxWorkers: containers rotated in parallel. Default 1. */
  maxWorkers?: number;
  /** containerLogMonitorInterval in ms, >= 3000. Default 10000. */
  monitorIntervalMs?: number;
  /**
   * Only containers with these CRI labels (default: every running container, as upstream). For a runtime
   * shared with other agents, or tests.
   */
  labelSelector?: Record<string, string>;
  /** Deadline of each CRI call (ms); default 30000. */
  callTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** What one rotation pass did (for logs and tests). */
export interface RotationResult {
  containerId: string;
  logPath: string;
  /** The name the current log got, when it was rotated. */
  rotatedTo?: string;
  /** Files removed (unused leftovers and the oldest beyond maxFiles). */
  removed: string[];
  /** Files compressed to `.gz`. */
  compressed: string[];
  error?: unknown;
}

export interface ContainerLogManager {
  /** Checks running containers every monitor interval and rotates their logs, until the signal aborts. Never rejects. */
  run(signal: AbortSignal): Promise<void>;
  /** One pass over the running containers (upstream rotateLogs plus the workers' processing). */
  rotateLogs(signal?: AbortSignal): Promise<RotationResult[]>;
  /** Removes every log file of a container, rotated ones included (upstream Clean). */
  clean(containerId: string): Promise<void>;
  /** False when rotation is disabled (maxSize < 0). */
  readonly enabled: boolean;
}

/**
 * Builds the log rotation manager. Rotation of a container whose current log is at least maxSize:
 * remove unused files (`.tmp`, uncompressed files whose `.gz` exists), remove the oldest rotated files so
 * that at most maxFiles - 2 remain, compress those to `.gz`, rename the current log to
 * `<path>.<YYYYMMDD-hhmmss>` (left uncompressed so that readers and the runtime can finish with it), then
 * CRI ReopenContainerLog; when reopening fails, the rename is undone so that the next pass tries again.
 * @throws ContainerLogsError INVALID_CONFIG
 */
export function createContainerLogManager(options: ContainerLogManagerOptions): ContainerLogManager {
  const maxSize = options.maxSize ?? DEFAULT_CONTAINER_LOG_MAX_SIZE;
  const maxFiles = options.maxFiles ?? DEFAULT_CONTAINER_LOG_MAX_FILES;
  const maxWorkers = options.maxWorkers ?? DEFAULT_CONTAINER_LOG_MAX_WORKERS;
  const intervalMs = options.monitorIntervalMs ?? DEFAULT_CONTAINER_LOG_MONITOR_INTERVAL_MS;
  if (!Number.isInteger(maxFiles) || maxFiles <= 1)
    throw new ContainerLogsError('INVALID_CONFIG', `invalid MaxFiles ${maxFiles}, must be > 1`);
  if (!Number.isFinite(maxSize)) throw new ContainerLogsError('INVALID_CONFIG', `invalid max log size ${maxSize}`);
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1)
    throw new ContainerLogsError('INVALID_CONFIG', `invalid containerLogMaxWorkers ${maxWorkers}, must be >= 1`);
  if (!(intervalMs >= MIN_CONTAINER_LOG_MONITOR_INTERVAL_MS)) {
    throw new ContainerLogsError('INVALID_CONFIG', `invalid containerLogMonitorInterval ${intervalMs} ms, must be at least 3s`);
  }
  return new LogManager({ ...options, maxSize, maxFiles, maxWorkers, intervalMs });
}

interface ResolvedOptions extends ContainerLogManagerOptions {
  maxSize: number;
  maxFiles: number;
  maxWorkers: number;
  intervalMs: number;
}

class LogManager implements ContainerLogManager {
  readonly #runtime: LogRuntime;
  readonly #maxSize: number;
  readonly #maxFiles: number;
  readonly #maxWorkers: number;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #labelSelector: Record<string, string> | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Containers being processed: a container is never rotated by two workers at once. */
  readonly #inFlight = new Set<string>();
  /**
   * Log path per container ID, from its first ContainerStatus: a container's log path never changes, so a
   * steady pass is one ListContainers plus a stat per container. Entries of containers no longer listed are dropped.
   */
  readonly #logPaths = new Map<string, string>();

  constructor(options: ResolvedOptions) {
    this.#runtime = options.runtime;
    this.#maxSize = options.maxSize;
    this.#maxFiles = options.maxFiles;
    this.#maxWorkers = options.maxWorkers;
    this.#intervalMs = options.intervalMs;
    this.#timeoutMs = options.callTimeoutMs ?? 30_000;
    this.#labelSelector = options.labelSelector;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
  }

  get enabled(): boolean {
    return this.#maxSize >= 0;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (!this.enabled) {
      this.#logger.info('Container log rotation disabled (containerLogMaxSize < 0)');
      return;
    }
    this.#logger.info('Initializing container log rotate workers', { workers: this.#maxWorkers, monitorPeriod: `${this.#intervalMs}ms` });
    while (!signal.aborted) {
      try {
        await this.rotateLogs(signal);
      } catch (err) {
        this.#logger.error('Failed to rotate container logs', { err: errorMessage(err) });
      }
      await this.#clock.sleep(this.#intervalMs, signal).catch(() => undefined);
    }
  }

  async rotateLogs(signal?: AbortSignal): Promise<RotationResult[]> {
    if (!this.enabled) return [];
    let containers;
    try {
      const filter = {
        state: { state: 'CONTAINER_RUNNING' as const },
        ...(this.#labelSelector === undefined ? {} : { labelSelector: this.#labelSelector }),
      };
      containers = (await this.#runtime.listContainers({ filter }, this.#call(signal))).containers;
    } catch (err) {
      throw ContainerLogsError.from(err, 'RUNTIME', 'failed to list containers');
    }
    // Forget containers that stopped or are gone: the cache holds only what the next pass may need.
    const listed = new Set(containers.map((c) => c.id));
    for (const id of this.#logPaths.keys()) if (!listed.has(id)) this.#logPaths.delete(id);
    // Only running containers: others write nothing more (upstream skips them too).
    const queue = containers.filter((c) => c.state === 'CONTAINER_RUNNING' && !this.#inFlight.has(c.id)).map((c) => c.id);
    for (const id of queue) this.#inFlight.add(id);
    const results: RotationResult[] = [];
    const worker = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          if (signal?.aborted === true) continue;
          const result = await this.#processContainer(id, signal);
          if (result !== undefined) results.push(result);
        } finally {
          this.#inFlight.delete(id);
        }
      }
    };
    const pending = [...queue];
    await Promise.all(Array.from({ length: Math.min(this.#maxWorkers, Math.max(1, pending.length)) }, worker));
    return results;
  }

  async clean(containerId: string): Promise<void> {
    const logPath = await this.#logPath(containerId);
    this.#logPaths.delete(containerId);
    if (logPath === '') return;
    const files = [logPath, ...(await listRotatedFiles(logPath))];
    for (const f of files) {
      await fs.rm(f, { force: true }).catch((err: unknown) => {
        throw ContainerLogsError.from(err, 'IO', `failed to remove container ${JSON.stringify(containerId)} log ${JSON.stringify(f)}`);
      });
    }
  }

  #call(signal: AbortSignal | undefined): { timeoutMs: number; signal?: AbortSignal } {
    return signal === undefined ? { timeoutMs: this.#timeoutMs } : { timeoutMs: this.#timeoutMs, signal };
  }

  async #logPath(containerId: string, signal?: AbortSignal): Promise<string> {
    const cached = this.#logPaths.get(containerId);
    if (cached !== undefined) return cached;
    try {
      const response = await this.#runtime.containerStatus({ containerId, verbose: false }, this.#call(signal));
      if (response.status === null) throw new ContainerLogsError('RUNTIME', `container status is nil for ${JSON.stringify(containerId)}`);
      this.#logPaths.set(containerId, response.status.logPath);
      return response.status.logPath;
    } catch (err) {
      throw ContainerLogsError.from(err, 'RUNTIME', `failed to get container status ${JSON.stringify(containerId)}`);
    }
  }

  async #processContainer(containerId: string, signal: AbortSignal | undefined): Promise<RotationResult | undefined> {
    const log = this.#logger.child({ containerID: containerId });
    let logPath = '';
    try {
      logPath = await this.#logPath(containerId, signal);
      if (logPath === '') return undefined;
      let size = await fileSize(logPath);
      if (size === undefined) {
        // The log is gone (removed by hand, or a rotation renamed it and died before reopening): reopen it.
        await this.#reopen(containerId, signal);
        size = await fileSize(logPath);
        if (size === undefined) throw new ContainerLogsError('IO', `container log ${logPath} does not exist after reopen`);
      }
      if (size < this.#maxSize) return undefined;
      const result = await this.#rotateLog(containerId, logPath, signal);
      log.info('Rotated container log', { path: logPath, rotatedTo: result.rotatedTo, currentSize: size, maxSize: this.#maxSize });
      return result;
    } catch (err) {
      // Ask ContainerStatus again next pass, in case the cached path is what went wrong.
      this.#logPaths.delete(containerId);
      log.error('Failed to rotate log for container', { path: logPath, err: errorMessage(err) });
      return { containerId, logPath, removed: [], compressed: [], error: err };
    }
  }

  async #rotateLog(containerId: string, logPath: string, signal: AbortSignal | undefined): Promise<RotationResult> {
    const result: RotationResult = { containerId, logPath, removed: [], compressed: [] };
    const { inuse, unused } = filterUnusedLogs(await listRotatedFiles(logPath));
    for (const f of unused) {
      await removeFile(f, 'unused');
      result.removed.push(f);
    }
    // The runtime writes a new file and the current one becomes the newest rotated one: keep maxFiles - 2 others,
    // removing oldest first so that an ongoing reader of newer files is not disturbed.
    const sorted = [...inuse].sort();
    const keep = Math.max(0, this.#maxFiles - 2);
    const excess = sorted.slice(0, Math.max(0, sorted.length - keep));
    for (const f of excess) {
      await removeFile(f, 'old');
      result.removed.push(f);
    }
    for (const f of sorted.slice(excess.length)) {
      if (f.endsWith(COMPRESS_SUFFIX)) continue;
      await compressLog(f);
      result.compressed.push(f);
    }
    const rotated = `${logPath}.${rotationTimestamp(this.#clock.now())}`;
    // Two rotations within one second would share the name; never overwrite a rotated log (the next pass retries).
    if ((await fileSize(rotated)) !== undefined || (await fileSize(rotated + COMPRESS_SUFFIX)) !== undefined) {
      throw new ContainerLogsError('IO', `rotated log ${rotated} already exists`);
    }
    try {
      await fs.rename(logPath, rotated);
    } catch (err) {
      throw new ContainerLogsError('IO', `failed to rotate log ${JSON.stringify(logPath)} to ${JSON.stringify(rotated)}`, { cause: err });
    }
    try {
      await this.#reopen(containerId, signal);
    } catch (err) {
      // Rename back so that the next pass rotates it again (upstream does the same).
      await fs.rename(rotated, logPath).catch((renameErr: unknown) => {
        this.#logger.error('Failed to rename rotated log', {
          rotatedLog: rotated,
          newLog: logPath,
          containerID: containerId,
          err: errorMessage(renameErr),
        });
      });
      throw ContainerLogsError.from(err, 'RUNTIME', `failed to reopen container log ${JSON.stringify(containerId)}`);
    }
    result.rotatedTo = rotated;
    return result;
  }

  async #reopen(containerId: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#runtime.reopenContainerLog({ containerId }, this.#call(signal));
    } catch (err) {
      throw ContainerLogsError.from(err, 'RUNTIME', `reopen container log ${JSON.stringify(containerId)} failed`);
    }
  }
}

async function fileSize(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ContainerLogsError.from(err, 'IO', `failed to stat container log ${JSON.stringify(file)}`);
  }
}

async function removeFile(file: string, what: string): Promise<void> {
  try {
    await fs.rm(file, { force: true });
  } catch (err) {
    throw new ContainerLogsError('IO', `failed to remove ${what} log ${JSON.stringify(file)}`, { cause: err });
  }
}

/** Compresses `log` as upstream: gzip into `log.tmp`, rename that to `log.gz`, then remove `log`. */
async function compressLog(log: string): Promise<void> {
  const tmp = log + TMP_SUFFIX;
  try {
    const { mode } = await fs.stat(log);
    await pipeline(createReadStream(log), createGzip(), createWriteStream(tmp, { mode: mode & 0o777 }));
    await fs.rename(tmp, log + COMPRESS_SUFFIX);
    await fs.rm(log, { force: true });
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw new ContainerLogsError('IO', `failed to compress log ${JSON.stringify(log)}`, { cause: err });
  }
}
