// The crictl-ts commands, written against the RuntimeService/ImageService interfaces so that unit tests run them on the fakes.
import { open } from 'node:fs/promises';
import type { Clock } from '@kubelet-ts/common';
import type { ContainerStateValue, PodSandboxStateValue } from '../gen/messages.js';
import type { CallOptions, ImageService, RuntimeService } from '../services.js';
import { labelSelector, USAGE } from './args.js';
import type { ParsedArgs } from './args.js';
import { parseCriLogLine } from '../cri-log.js';
import type { CriLogRecord } from '../cri-log.js';
import { ago, formatTable, humanSize, parseInfo, splitRepoTag, stateName, toJson, truncateId } from './format.js';

export interface Writer {
  write(text: string): void;
}

export interface CliContext {
  runtime: RuntimeService;
  image: ImageService;
  stdout: Writer;
  stderr: Writer;
  clock: Clock;
  /** Deadline and cancellation for every call. */
  callOptions: CallOptions;
  /** Stops `logs -f`. */
  signal?: AbortSignal;
  /** Poll interval of `logs -f`; default 250 ms. */
  followIntervalMs?: number;
}

/** Runs one parsed command; resolves to the process exit code. */
export async function runCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  switch (args.command) {
    case 'help':
      ctx.stdout.write(USAGE);
      return 0;
    case 'version':
      return version(args, ctx);
    case 'info':
      return info(ctx);
    case 'pods':
      return pods(args, ctx);
    case 'ps':
      return ps(args, ctx);
    case 'images':
      return images(args, ctx);
    case 'inspect':
      return inspect(args, ctx);
    case 'inspectp':
      return inspectp(args, ctx);
    case 'exec':
      return exec(args, ctx);
    case 'logs':
      return logs(args, ctx);
    case 'pull':
      return pull(args, ctx);
    case 'rmi':
      return rmi(args, ctx);
    case 'stats':
      return stats(args, ctx);
  }
}

async function version(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const v = await ctx.runtime.version({ version: '0.1.0' }, ctx.callOptions);
  if (args.global.output === 'json') ctx.stdout.write(toJson(v));
  else
    ctx.stdout.write(
      `Version:  ${v.version}\nRuntimeName:  ${v.runtimeName}\nRuntimeVersion:  ${v.runtimeVersion}\nRuntimeApiVersion:  ${v.runtimeApiVersion}\n`,
    );
  return 0;
}

async function info(ctx: CliContext): Promise<number> {
  const response = await ctx.runtime.status({ verbose: true }, ctx.callOptions);
  ctx.stdout.write(
    toJson({
      status: response.status,
      runtimeHandlers: response.runtimeHandlers,
      features: response.features,
      ...parseInfo(response.info),
    }),
  );
  return 0;
}

function sandboxState(value: string | undefined): PodSandboxStateValue | undefined {
  if (value === undefined) return undefined;
  const normalized = value.toLowerCase();
  if (normalized === 'ready' || normalized === 'sandbox_ready') return { state: 'SANDBOX_READY' };
  if (normalized === 'notready' || normalized === 'sandbox_notready') return { state: 'SANDBOX_NOTREADY' };
  throw new Error(`unknown pod state "${value}" (ready, notready)`);
}

function containerState(value: string | undefined): ContainerStateValue | undefined {
  if (value === undefined) return undefined;
  const name = `CONTAINER_${value.toUpperCase().replace(/^CONTAINER_/, '')}`;
  if (!['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'].includes(name)) {
    throw new Error(`unknown container state "${value}" (created, running, exited, unknown)`);
  }
  return { state: name as ContainerStateValue['state'] };
}

function flag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

async function pods(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const state = sandboxState(flag(args, 'state'));
  const response = await ctx.runtime.listPodSandbox(
    { filter: { labelSelector: labelSelector(args.flags), ...(state === undefined ? {} : { state }) } },
    ctx.callOptions,
  );
  const name = flag(args, 'name');
  const namespace = flag(args, 'namespace');
  const items = response.items
    .filter((p) => name === undefined || new RegExp(name).test(p.metadata?.name ?? ''))
    .filter((p) => namespace === undefined || new RegExp(namespace).test(p.metadata?.namespace ?? ''))
    .sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)));
  if (args.flags.quiet === true) {
    for (const p of items) ctx.stdout.write(`${p.id}\n`);
    return 0;
  }
  if (args.global.output === 'json') {
    ctx.stdout.write(toJson({ items }));
    return 0;
  }
  const now = ctx.clock.now();
  ctx.stdout.write(
    formatTable(
      ['POD ID', 'CREATED', 'STATE', 'NAME', 'NAMESPACE', 'ATTEMPT', 'RUNTIME'],
      items.map((p) => [
        truncateId(p.id),
        ago(p.createdAt, now),
        stateName(p.state),
        p.metadata?.name ?? '',
        p.metadata?.namespace ?? '',
        String(p.metadata?.attempt ?? 0),
        p.runtimeHandler === '' ? '(default)' : p.runtimeHandler,
      ]),
    ),
  );
  return 0;
}

async function ps(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const explicitState = containerState(flag(args, 'state'));
  const state = explicitState ?? (args.flags.all === true ? undefined : { state: 'CONTAINER_RUNNING' as const });
  const pod = flag(args, 'pod');
  const response = await ctx.runtime.listContainers(
    {
      filter: {
        labelSelector: labelSelector(args.flags),
        ...(state === undefined ? {} : { state }),
        ...(pod === undefined ? {} : { podSandboxId: pod }),
      },
    },
    ctx.callOptions,
  );
  const name = flag(args, 'name');
  const containers = response.containers
    .filter((c) => name === undefined || new RegExp(name).test(c.metadata?.name ?? ''))
    .sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)));
  if (args.flags.quiet === true) {
    for (const c of containers) ctx.stdout.write(`${c.id}\n`);
    return 0;
  }
  if (args.global.output === 'json') {
    ctx.stdout.write(toJson({ containers }));
    return 0;
  }
  const [sandboxes, imageList] = await Promise.all([
    ctx.runtime.listPodSandbox({}, ctx.callOptions),
    ctx.image.listImages({}, ctx.callOptions),
  ]);
  const podNames = new Map(sandboxes.items.map((s) => [s.id, s.metadata?.name ?? '']));
  const imageNames = new Map(imageList.images.map((i) => [i.id, i.repoTags[0] ?? truncateId(i.id)]));
  const now = ctx.clock.now();
  ctx.stdout.write(
    formatTable(
      ['CONTAINER', 'IMAGE', 'CREATED', 'STATE', 'NAME', 'ATTEMPT', 'POD ID', 'POD'],
      containers.map((c) => {
        const image = c.image?.image ?? '';
        return [
          truncateId(c.id),
          imageNames.get(c.imageRef) ?? imageNames.get(image) ?? (image.startsWith('sha256:') ? truncateId(image) : image),
          ago(c.createdAt, now),
          stateName(c.state),
          c.metadata?.name ?? '',
          String(c.metadata?.attempt ?? 0),
          truncateId(c.podSandboxId),
          podNames.get(c.podSandboxId) ?? '',
        ];
      }),
    ),
  );
  return 0;
}

async function images(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const response = await ctx.image.listImages({}, ctx.callOptions);
  if (args.flags.quiet === true) {
    for (const i of response.images) ctx.stdout.write(`${i.id}\n`);
    return 0;
  }
  if (args.global.output === 'json') {
    ctx.stdout.write(toJson({ images: response.images }));
    return 0;
  }
  const rows: string[][] = [];
  for (const image of response.images) {
    const refs =
      image.repoTags.length > 0
        ? image.repoTags.map(splitRepoTag)
        : image.repoDigests.map((d) => ({ repo: d.split('@')[0] ?? d, tag: '<none>' }));
    for (const { repo, tag } of refs.length > 0 ? refs : [{ repo: '<none>', tag: '<none>' }]) {
      rows.push([repo, tag, truncateId(image.id), humanSize(image.size)]);
    }
  }
  rows.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '') || (a[1] ?? '').localeCompare(b[1] ?? ''));
  ctx.stdout.write(formatTable(['IMAGE', 'TAG', 'IMAGE ID', 'SIZE'], rows));
  return 0;
}

async function inspect(args: ParsedArgs, ctx: CliContext): Promise<number> {
  for (const id of args.positionals) {
    const response = await ctx.runtime.containerStatus({ containerId: id, verbose: true }, ctx.callOptions);
    const status = response.status;
    if (args.global.output === 'table' && status !== null) {
      ctx.stdout.write(
        `ID: ${status.id}\nName: ${status.metadata?.name ?? ''}\nAttempt: ${status.metadata?.attempt ?? 0}\nState: ${status.state}\n` +
          `Created: ${ago(status.createdAt, ctx.clock.now())}\nExit Code: ${status.exitCode}\nReason: ${status.reason}\nImage: ${status.image?.image ?? ''}\nLog Path: ${status.logPath}\n`,
      );
    } else {
      ctx.stdout.write(toJson({ status, info: parseInfo(response.info) }));
    }
  }
  return 0;
}

async function inspectp(args: ParsedArgs, ctx: CliContext): Promise<number> {
  for (const id of args.positionals) {
    const response = await ctx.runtime.podSandboxStatus({ podSandboxId: id, verbose: true }, ctx.callOptions);
    const status = response.status;
    if (args.global.output === 'table' && status !== null) {
      ctx.stdout.write(
        `ID: ${status.id}\nName: ${status.metadata?.name ?? ''}\nUID: ${status.metadata?.uid ?? ''}\nNamespace: ${status.metadata?.namespace ?? ''}\n` +
          `Attempt: ${status.metadata?.attempt ?? 0}\nStatus: ${stateName(status.state)}\nCreated: ${ago(status.createdAt, ctx.clock.now())}\nIP Addresses: ${status.network?.ip ?? ''}\n`,
      );
    } else {
      ctx.stdout.write(toJson({ status, info: parseInfo(response.info) }));
    }
  }
  return 0;
}

async function exec(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const [containerId, ...cmd] = args.positionals;
  const timeout = Number(flag(args, 'timeout') ?? '0');
  const response = await ctx.runtime.execSync({ containerId: containerId ?? '', cmd, timeout }, ctx.callOptions);
  if (response.stdout.length > 0) ctx.stdout.write(response.stdout.toString('utf8'));
  if (response.stderr.length > 0) ctx.stderr.write(response.stderr.toString('utf8'));
  return response.exitCode;
}

async function pull(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const [ref] = args.positionals;
  const creds = flag(args, 'creds');
  const colon = creds?.indexOf(':') ?? -1;
  const auth =
    creds !== undefined
      ? { username: creds.slice(0, colon), password: creds.slice(colon + 1) }
      : flag(args, 'auth') !== undefined
        ? { auth: flag(args, 'auth') ?? '' }
        : undefined;
  const response = await ctx.image.pullImage({ image: { image: ref ?? '' }, ...(auth === undefined ? {} : { auth }) }, ctx.callOptions);
  ctx.stdout.write(`Image is up to date for ${response.imageRef}\n`);
  return 0;
}

async function rmi(args: ParsedArgs, ctx: CliContext): Promise<number> {
  let exitCode = 0;
  for (const ref of args.positionals) {
    const status = await ctx.image.imageStatus({ image: { image: ref } }, ctx.callOptions);
    if (status.image === null) {
      ctx.stderr.write(`no such image ${ref}\n`);
      exitCode = 1;
      continue;
    }
    await ctx.image.removeImage({ image: { image: status.image.id } }, ctx.callOptions);
    for (const name of status.image.repoTags.length > 0 ? status.image.repoTags : [status.image.id]) ctx.stdout.write(`Deleted: ${name}\n`);
  }
  return exitCode;
}

async function stats(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const pod = flag(args, 'pod');
  const response = await ctx.runtime.listContainerStats(
    { filter: { labelSelector: labelSelector(args.flags), ...(pod === undefined ? {} : { podSandboxId: pod }) } },
    ctx.callOptions,
  );
  if (args.global.output === 'json') {
    ctx.stdout.write(toJson({ stats: response.stats }));
    return 0;
  }
  ctx.stdout.write(
    formatTable(
      ['CONTAINER', 'NAME', 'CPU %', 'MEM', 'DISK', 'INODES'],
      response.stats.map((s) => [
        truncateId(s.attributes?.id ?? ''),
        s.attributes?.metadata?.name ?? '',
        ((Number(s.cpu?.usageNanoCores?.value ?? '0') / 1e9) * 100).toFixed(2),
        humanSize(s.memory?.workingSetBytes?.value ?? '0'),
        humanSize(s.writableLayer?.usedBytes?.value ?? '0'),
        s.writableLayer?.inodesUsed?.value ?? '0',
      ]),
    ),
  );
  return 0;
}

async function logs(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const [containerId] = args.positionals;
  const status = (await ctx.runtime.containerStatus({ containerId: containerId ?? '' }, ctx.callOptions)).status;
  const logPath = status?.logPath ?? '';
  if (logPath === '') throw new Error(`container ${containerId ?? ''} has no log path`);
  const tail = Number(flag(args, 'tail') ?? '-1');
  const timestamps = args.flags.timestamps === true;
  const print = (line: string): void => {
    let entry: CriLogRecord;
    try {
      entry = parseCriLogLine(line);
    } catch {
      return; // not a CRI log line: skipped, as crictl does
    }
    const target = entry.stream === 'stderr' ? ctx.stderr : ctx.stdout;
    target.write(`${timestamps ? `${entry.timestamp} ` : ''}${entry.content.toString('utf8')}${entry.partial ? '' : '\n'}`);
  };

  const file = await open(logPath, 'r');
  try {
    let offset = 0;
    let pending = '';
    const readNew = async (): Promise<string[]> => {
      const { size } = await file.stat();
      if (size < offset) offset = 0; // truncated or rotated in place
      if (size === offset) return [];
      const buffer = Buffer.alloc(size - offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const text = pending + buffer.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      pending = lines.pop() ?? '';
      return lines;
    };

    const first = await readNew();
    for (const line of tail >= 0 ? first.slice(Math.max(0, first.length - tail)) : first) print(line);
    if (args.flags.follow !== true) return 0;

    const intervalMs = ctx.followIntervalMs ?? 250;
    for (;;) {
      try {
        await ctx.clock.sleep(intervalMs, ctx.signal);
      } catch {
        return 0; // interrupted
      }
      for (const line of await readNew()) print(line);
      const current = (await ctx.runtime.containerStatus({ containerId: containerId ?? '' }, ctx.callOptions)).status;
      if (current?.state !== 'CONTAINER_RUNNING') {
        for (const line of await readNew()) print(line);
        return 0;
      }
    }
  } finally {
    await file.close();
  }
}
