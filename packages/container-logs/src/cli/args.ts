// Flags of `kubelet-ts-logs`: turned into v1.PodLogOptions and validated with the same zod schema as HTTP input.
import { UsageError, goDurationError, parseGoDuration } from '@kubelet-ts/common';
import { parsePodLogOptions } from '../options.js';
import type { PodLogOptions } from '../options.js';

export const DEFAULT_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';

export const USAGE = `Usage: kubelet-ts-logs logs [flags] <container-id>

Prints a container's log from its CRI log files (rotated and gzipped ones included), as kubectl logs would.

Flags:
  -f, --follow               Keep printing new lines until the container exits (survives log rotation)
      --tail N               Only the last N lines (across rotated files)
      --since DURATION       Only lines newer than this (e.g. 10s, 5m, 1h30m)
      --since-time RFC3339   Only lines at or after this time
      --timestamps           Prefix each line with its RFC3339Nano timestamp
      --limit-bytes N        Stop after N bytes
  -p, --previous             The previous attempt of the container (<dir>/<attempt-1>.log)
      --stream S             All (default), Stdout or Stderr
  -r, --runtime-endpoint EP  CRI endpoint (env KUBELET_TS_CRI_ENDPOINT, then CONTAINER_RUNTIME_ENDPOINT;
                             default ${DEFAULT_RUNTIME_ENDPOINT})
  -h, --help                 Show this help
`;

export interface LogsArgs {
  help: boolean;
  containerId: string;
  endpoint: string;
  options: PodLogOptions;
}

const VALUE_FLAGS = new Map([
  ['tail', 'tail'],
  ['since', 'since'],
  ['since-time', 'since-time'],
  ['limit-bytes', 'limit-bytes'],
  ['stream', 'stream'],
  ['runtime-endpoint', 'runtime-endpoint'],
  ['r', 'runtime-endpoint'],
]);
const BOOL_FLAGS = new Map([
  ['follow', 'follow'],
  ['f', 'follow'],
  ['timestamps', 'timestamps'],
  ['previous', 'previous'],
  ['p', 'previous'],
  ['help', 'help'],
  ['h', 'help'],
]);

/** `--since`: a Go duration (@kubelet-ts/common's parser) greater than 0, in milliseconds. */
function sinceMs(text: string): number {
  if (goDurationError(text) !== undefined) throw new UsageError('USAGE', `invalid duration ${JSON.stringify(text)} (e.g. 10s, 5m, 1h30m)`);
  const ms = parseGoDuration(text);
  // kubectl logs: "--since must be greater than 0".
  if (ms <= 0) throw new UsageError('USAGE', `--since must be greater than 0, got ${JSON.stringify(text)}`);
  return ms;
}

function integer(flag: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError('USAGE', `--${flag} must be an integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Parses argv (after node and the script): `logs [flags] <container-id>`. */
export function parseLogsArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): LogsArgs {
  const values: Record<string, string> = {};
  const bools = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg.startsWith('-') && arg !== '-') {
      const body = arg.replace(/^--?/, '');
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const valueFlag = VALUE_FLAGS.get(name);
      const boolFlag = BOOL_FLAGS.get(name);
      if (valueFlag !== undefined) {
        const value = eq < 0 ? argv[++i] : body.slice(eq + 1);
        if (value === undefined) throw new UsageError('USAGE', `flag --${valueFlag} needs a value`);
        values[valueFlag] = value;
      } else if (boolFlag !== undefined) {
        if (eq >= 0) throw new UsageError('USAGE', `flag --${boolFlag} takes no value`);
        bools.add(boolFlag);
      } else {
        throw new UsageError('USAGE', `unknown flag ${arg}`);
      }
      continue;
    }
    positionals.push(arg);
  }
  const endpoint =
    values['runtime-endpoint'] ??
    nonEmpty(env.KUBELET_TS_CRI_ENDPOINT) ??
    nonEmpty(env.CONTAINER_RUNTIME_ENDPOINT) ??
    DEFAULT_RUNTIME_ENDPOINT;
  if (bools.has('help') || positionals.length === 0) return { help: true, containerId: '', endpoint, options: {} };
  if (positionals[0] !== 'logs') throw new UsageError('USAGE', `unknown command ${JSON.stringify(positionals[0])}`);
  if (positionals.length !== 2) throw new UsageError('USAGE', '"logs" takes exactly one container ID');
  const raw: Record<string, unknown> = {};
  if (bools.has('follow')) raw.follow = true;
  if (bools.has('timestamps')) raw.timestamps = true;
  if (bools.has('previous')) raw.previous = true;
  if (values.tail !== undefined) {
    const tail = integer('tail', values.tail);
    if (tail >= 0) raw.tailLines = tail; // kubectl: -1 means all
  }
  if (values['limit-bytes'] !== undefined) raw.limitBytes = integer('limit-bytes', values['limit-bytes']);
  if (values.since !== undefined) raw.sinceSeconds = Math.max(1, Math.ceil(sinceMs(values.since) / 1000));
  if (values['since-time'] !== undefined) raw.sinceTime = values['since-time'];
  if (values.stream !== undefined) raw.stream = values.stream;
  let options: PodLogOptions;
  try {
    options = parsePodLogOptions(raw);
  } catch (err) {
    throw new UsageError(
      'USAGE',
      (err as Error).message
        .replace(/tailLines/g, '--tail')
        .replace(/limitBytes/g, '--limit-bytes')
        .replace(/sinceSeconds/g, '--since')
        .replace(/sinceTime/g, '--since-time'),
    );
  }
  return { help: false, containerId: positionals[1] ?? '', endpoint, options };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
