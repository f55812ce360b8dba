import { promises as fs } from 'node:fs';
import { formatCriLogLine } from '@kubelet-ts/cri-client';
import type { LogStream } from '@kubelet-ts/cri-client';
import { formatEpochMs } from '../cri-log.js';
import type { ContainerLocator, ContainerLogRequest, ContainerLogTarget } from '../container-logs.js';
import type { ContainerLogManager, RotationResult } from '../log-manager.js';

/** A ContainerLogManager that records calls; `rotateLogs` returns `nextResults`. */
export class FakeContainerLogManager implements ContainerLogManager {
  readonly calls: Array<{ method: 'run' | 'rotateLogs' | 'clean'; containerId?: string }> = [];
  nextResults: RotationResult[] = [];
  enabled = true;
  /** Set to make `clean` reject. */
  cleanError: Error | undefined;

  async run(signal: AbortSignal): Promise<void> {
    this.calls.push({ method: 'run' });
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  async rotateLogs(): Promise<RotationResult[]> {
    this.calls.push({ method: 'rotateLogs' });
    return this.nextResults;
  }

  async clean(containerId: string): Promise<void> {
    this.calls.push({ method: 'clean', containerId });
    if (this.cleanError !== undefined) throw this.cleanError;
  }
}

export interface FakeLocatorEntry extends ContainerLogRequest {
  target: ContainerLogTarget;
}

/** A ContainerLocator over a fixed table; records every request in `requests`. */
export function createFakeLocator(entries: FakeLocatorEntry[]): ContainerLocator & { requests: ContainerLogRequest[] } {
  const requests: ContainerLogRequest[] = [];
  const locate = async (request: ContainerLogRequest): Promise<ContainerLogTarget | undefined> => {
    requests.push(request);
    return entries.find(
      (e) =>
        e.namespace === request.namespace && e.pod === request.pod && e.container === request.container && e.previous === request.previous,
    )?.target;
  };
  return Object.assign(locate, { requests });
}

export interface WriteCriLogOptions {
  /** Time of the first line (ms); each line is `stepMs` later. Default 2026-01-01T00:00:00Z, 1 ms. */
  startMs?: number;
  stepMs?: number;
  stream?: LogStream;
  /** Append instead of replacing the file. */
  append?: boolean;
}

/** Writes lines as a runtime would (one F record each); returns the bytes written. */
export async function writeCriLog(file: string, lines: readonly string[], options: WriteCriLogOptions = {}): Promise<number> {
  const start = options.startMs ?? Date.UTC(2026, 0, 1);
  const step = options.stepMs ?? 1;
  const data = Buffer.concat(
    lines.map((content, i) =>
      formatCriLogLine({ timestamp: formatEpochMs(start + i * step), stream: options.stream ?? 'stdout', content }),
    ),
  );
  if (options.append === true) await fs.appendFile(file, data);
  else await fs.writeFile(file, data);
  return data.length;
}

/** `line <from>` … `line <to>`. */
export function numberedLines(from: number, to: number): string[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => `line ${from + i}`);
}
