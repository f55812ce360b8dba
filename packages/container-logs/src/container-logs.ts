// What /containerLogs/{namespace}/{pod}/{container} needs (upstream: kubelet GetContainerLogs →
// kuberuntime GetContainerLogs → ReadLogs), without the HTTP server itself.
import { once } from 'node:events';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import { isNotFound } from '@kubelet-ts/cri-client';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import { ContainerLogsError } from './errors.js';
import { newLogOptions, parsePodLogOptions } from './options.js';
import type { PodLogOptions } from './options.js';
import { readLogs } from './reader.js';
import type { LogChunk } from './reader.js';

/** The container whose log to read. */
export interface ContainerLogTarget {
  containerId: string;
  /** The log file; read from CRI ContainerStatus when omitted. */
  logPath?: string;
}

export interface ContainerLogRequest {
  namespace: string;
  pod: string;
  container: string;
  /** Whether the previous (terminated) instance is wanted. */
  previous: boolean;
}

/**
 * Finds a pod's container: the current instance, or with `previous` the one that ran before it
 * (upstream: the pod status' lastTerminationState). Undefined when there is none.
 */
export type ContainerLocator = (request: ContainerLogRequest) => Promise<ContainerLogTarget | undefined>;

export interface StreamContainerLogsOptions {
  namespace: string;
  pod: string;
  container: string;
  /** v1.PodLogOptions, untrusted (validated here). */
  options: unknown;
  locate: ContainerLocator;
  runtime: Pick<RuntimeService, 'containerStatus'>;
  signal?: AbortSignal;
  pollIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/**
 * Validates the options, finds the container and its log file, and returns the log as chunks. It
 * rejects before any byte is produced, so that a server can answer 400 (code INVALID_OPTIONS) or 404
 * (code NOT_FOUND) first; the iterable then streams (following if asked) until done or the signal aborts.
 */
export async function streamContainerLogs(request: StreamContainerLogsOptions): Promise<AsyncIterable<LogChunk>> {
  const options: PodLogOptions = parsePodLogOptions(request.options);
  const clock = request.clock ?? systemClock;
  const previous = options.previous === true;
  const what = `container ${JSON.stringify(request.container)} in pod ${JSON.stringify(`${request.namespace}/${request.pod}`)}`;
  const target = await request.locate({ namespace: request.namespace, pod: request.pod, container: request.container, previous });
  if (target === undefined) {
    throw new ContainerLogsError('NOT_FOUND', previous ? `previous terminated ${what} not found` : `${what} not found`);
  }
  let logPath = target.logPath;
  if (logPath === undefined || logPath === '') {
    try {
      const response = await request.runtime.containerStatus({ containerId: target.containerId, verbose: false });
      logPath = response.status?.logPath ?? '';
    } catch (err) {
      if (isNotFound(err))
        throw new ContainerLogsError('NOT_FOUND', `${what}: container ${target.containerId} not found in the runtime`, { cause: err });
      throw ContainerLogsError.from(err, 'RUNTIME', `failed to get container status ${JSON.stringify(target.containerId)}`);
    }
    if (logPath === '') throw new ContainerLogsError('NOT_FOUND', `${what} has no log path`);
  }
  return readLogs({
    logPath,
    options: newLogOptions(options, clock.now()),
    containerId: target.containerId,
    runtime: request.runtime,
    clock,
    logger: request.logger ?? noopLogger,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.pollIntervalMs === undefined ? {} : { pollIntervalMs: request.pollIntervalMs }),
  });
}

/** Writes chunks to a stream with back-pressure (stdout and stderr chunks to the same stream unless `stderr` is given). */
export async function pipeLogs(chunks: AsyncIterable<LogChunk>, stdout: Writable, stderr: Writable = stdout): Promise<number> {
  let bytes = 0;
  for await (const chunk of chunks) {
    const out = chunk.stream === 'stderr' ? stderr : stdout;
    bytes += chunk.data.length;
    if (!out.write(chunk.data)) await once(out, 'drain');
  }
  return bytes;
}

/** CRI labels the kubelet puts on containers (upstream names). */
const POD_NAME = 'io.kubernetes.pod.name';
const POD_NAMESPACE = 'io.kubernetes.pod.namespace';
const CONTAINER_NAME = 'io.kubernetes.container.name';

/**
 * A locator over CRI alone: the pod's containers by the kubelet's labels, newest attempt first;
 * `previous` is the instance with the next lower attempt. Works for any pod a kubelet started.
 */
export function createCriContainerLocator(runtime: Pick<RuntimeService, 'listContainers'>): ContainerLocator {
  return async (request) => {
    const { containers } = await runtime.listContainers({
      filter: { labelSelector: { [POD_NAMESPACE]: request.namespace, [POD_NAME]: request.pod, [CONTAINER_NAME]: request.container } },
    });
    const sorted = [...containers].sort((a, b) => {
      const attempts = (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0);
      return attempts !== 0 ? attempts : Number(BigInt(b.createdAt) - BigInt(a.createdAt));
    });
    const chosen = request.previous ? sorted[1] : sorted[0];
    return chosen === undefined ? undefined : { containerId: chosen.id };
  };
}

/**
 * The log path of a container's previous attempt, as crictl `logs --previous` derives it:
 * `<dir>/<attempt - 1>.log`. Undefined for attempt 0.
 */
export function previousLogPath(logPath: string, attempt: number): string | undefined {
  if (attempt <= 0) return undefined;
  const ext = path.extname(logPath);
  return path.join(path.dirname(logPath), `${attempt - 1}${ext}`);
}
