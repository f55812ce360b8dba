// `kubelet-ts-logs logs <id>`, written against the RuntimeService interface so that unit tests run it on the fake.
import type { Clock } from '@kubelet-ts/common';
import { isNotFound } from '@kubelet-ts/cri-client';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import { previousLogPath } from '../container-logs.js';
import { ContainerLogsError } from '../errors.js';
import { newLogOptions } from '../options.js';
import { readLogs } from '../reader.js';
import { USAGE } from './args.js';
import type { LogsArgs } from './args.js';

export interface Writer {
  write(data: Buffer | string): boolean;
  once?(event: 'drain', listener: () => void): unknown;
}

export interface LogsContext {
  runtime: Pick<RuntimeService, 'containerStatus'>;
  stdout: Writer;
  stderr: Writer;
  clock: Clock;
  signal?: AbortSignal;
  pollIntervalMs?: number;
}

/** Runs the command; resolves to the exit code. Errors reject (main prints them). */
export async function runLogsCommand(args: LogsArgs, ctx: LogsContext): Promise<number> {
  if (args.help) {
    ctx.stdout.write(USAGE);
    return 0;
  }
  let status;
  try {
    status = (await ctx.runtime.containerStatus({ containerId: args.containerId, verbose: false })).status;
  } catch (err) {
    if (isNotFound(err))
      throw new ContainerLogsError('NOT_FOUND', `container ${JSON.stringify(args.containerId)} not found`, { cause: err });
    throw ContainerLogsError.from(err, 'RUNTIME', `failed to get container status ${JSON.stringify(args.containerId)}`);
  }
  if (status === null || status.logPath === '')
    throw new ContainerLogsError('NOT_FOUND', `container ${JSON.stringify(args.containerId)} has no log path`);
  let logPath = status.logPath;
  const options = newLogOptions(args.options, ctx.clock.now());
  if (args.options.previous === true) {
    const previous = previousLogPath(logPath, status.metadata?.attempt ?? 0);
    if (previous === undefined)
      throw new ContainerLogsError('NOT_FOUND', `previous terminated container of ${JSON.stringify(args.containerId)} not found`);
    logPath = previous;
    options.follow = false; // the previous attempt has ended
  }
  const chunks = readLogs({
    logPath,
    options,
    containerId: status.id,
    runtime: ctx.runtime,
    clock: ctx.clock,
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(ctx.pollIntervalMs === undefined ? {} : { pollIntervalMs: ctx.pollIntervalMs }),
  });
  for await (const chunk of chunks) {
    const out = chunk.stream === 'stderr' ? ctx.stderr : ctx.stdout;
    if (!out.write(chunk.data) && out.once !== undefined) await new Promise<void>((resolve) => out.once?.('drain', resolve));
  }
  return 0;
}
