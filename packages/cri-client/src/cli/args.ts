// Argument parsing for crictl-ts: global flags, one command, its flags, positionals, and `--` passthrough.
import { UsageError } from '@kubelet-ts/common';

export const COMMANDS = [
  'pods',
  'ps',
  'images',
  'inspect',
  'inspectp',
  'exec',
  'logs',
  'pull',
  'rmi',
  'stats',
  'info',
  'version',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export type OutputFormat = 'table' | 'json';

export interface GlobalOptions {
  runtimeEndpoint: string;
  imageEndpoint: string | undefined;
  /** Per-call deadline in seconds; undefined uses the client defaults. */
  timeoutSeconds: number | undefined;
  /** undefined: the command's default (table for lists, json for inspect/inspectp/info). */
  output: OutputFormat | undefined;
}

export interface ParsedArgs {
  global: GlobalOptions;
  command: CommandName;
  /** Command flags by long name; booleans are true, repeated `--label` accumulates. */
  flags: Record<string, string | boolean | string[]>;
  positionals: string[];
}

interface FlagSpec {
  name: string;
  short?: string;
  takesValue: boolean;
  repeatable?: boolean;
}

const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'runtime-endpoint', short: 'r', takesValue: true },
  { name: 'image-endpoint', short: 'i', takesValue: true },
  { name: 'timeout', short: 't', takesValue: true },
  { name: 'output', short: 'o', takesValue: true },
  { name: 'help', short: 'h', takesValue: false },
];

const COMMAND_FLAGS: Record<CommandName, FlagSpec[]> = {
  pods: [
    { name: 'quiet', short: 'q', takesValue: false },
    { name: 'name', takesValue: true },
    { name: 'namespace', takesValue: true },
    { name: 'state', short: 's', takesValue: true },
    { name: 'label', takesValue: true, repeatable: true },
  ],
  ps: [
    { name: 'all', short: 'a', takesValue: false },
    { name: 'quiet', short: 'q', takesValue: false },
    { name: 'pod', short: 'p', takesValue: true },
    { name: 'name', takesValue: true },
    { name: 'state', short: 's', takesValue: true },
    { name: 'label', takesValue: true, repeatable: true },
  ],
  images: [{ name: 'quiet', short: 'q', takesValue: false }],
  inspect: [],
  inspectp: [],
  exec: [{ name: 'timeout', takesValue: true }],
  logs: [
    { name: 'tail', takesValue: true },
    { name: 'follow', short: 'f', takesValue: false },
    { name: 'timestamps', takesValue: false },
  ],
  pull: [
    { name: 'creds', takesValue: true },
    { name: 'auth', takesValue: true },
  ],
  rmi: [],
  stats: [
    { name: 'all', short: 'a', takesValue: false },
    { name: 'pod', short: 'p', takesValue: true },
    { name: 'label', takesValue: true, repeatable: true },
  ],
  info: [],
  version: [],
  help: [],
};

export const DEFAULT_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';

export const USAGE = `Usage: crictl-ts [global flags] <command> [flags] [args]

Commands:
  pods                  List pod sandboxes (--name, --namespace, --state, --label k=v, -q)
  ps                    List running containers (-a for all, --pod, --name, --state, --label k=v, -q)
  images                List images (-q)
  inspect <id>...       Show container status (verbose)
  inspectp <id>...      Show pod sandbox status (verbose)
  exec <id> [--] cmd... Run a command in a container (ExecSync; --timeout seconds)
  logs <id>             Print a container's log (--tail N, -f, --timestamps)
  pull <image>          Pull an image (--creds user:pass, --auth base64)
  rmi <image>...        Remove images (every tag of each image)
  stats                 Container resource usage (-a, --pod, --label k=v)
  info                  Runtime status and configuration
  version               Runtime and API versions

Global flags:
  -r, --runtime-endpoint  CRI endpoint (env CONTAINER_RUNTIME_ENDPOINT; default ${DEFAULT_RUNTIME_ENDPOINT})
  -i, --image-endpoint    Image endpoint (env IMAGE_SERVICE_ENDPOINT; default: the runtime endpoint)
  -t, --timeout           Per-call timeout in seconds
  -o, --output            table | json
  -h, --help              Show this help
`;

/** Parses argv (without node and the script). `env` supplies CONTAINER_RUNTIME_ENDPOINT / IMAGE_SERVICE_ENDPOINT. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ParsedArgs {
  const globalValues: Record<string, string | boolean | string[]> = {};
  const flags: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  let command: CommandName | undefined;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      if (command === undefined) throw new UsageError('USAGE', '"--" before a command');
      positionals.push(...argv.slice(i + 1));
      break;
    }
    // After exec's container ID, everything is the command (crictl allows `exec <id> ls -l` without --).
    if (command === 'exec' && positionals.length >= 1) {
      positionals.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const { name, inlineValue } = splitFlag(arg);
      const spec = findFlag(command === undefined ? [] : COMMAND_FLAGS[command], name) ?? findFlag(GLOBAL_FLAGS, name);
      if (spec === undefined) throw new UsageError('USAGE', `unknown flag ${arg}${command === undefined ? '' : ` for "${command}"`}`);
      const target = command !== undefined && findFlag(COMMAND_FLAGS[command], name) !== undefined ? flags : globalValues;
      if (!spec.takesValue) {
        if (inlineValue !== undefined) throw new UsageError('USAGE', `flag --${spec.name} takes no value`);
        target[spec.name] = true;
        continue;
      }
      let value = inlineValue;
      if (value === undefined) {
        value = argv[i + 1];
        i += 1;
      }
      if (value === undefined) throw new UsageError('USAGE', `flag --${spec.name} needs a value`);
      if (spec.repeatable === true) {
        const previous = target[spec.name];
        target[spec.name] = [...(Array.isArray(previous) ? previous : []), value];
      } else {
        target[spec.name] = value;
      }
      continue;
    }
    if (command === undefined) {
      if (!(COMMANDS as readonly string[]).includes(arg)) throw new UsageError('USAGE', `unknown command "${arg}"`);
      command = arg as CommandName;
    } else {
      positionals.push(arg);
    }
  }

  if (globalValues.help === true || command === undefined) command = 'help';
  const output = stringValue(globalValues.output);
  if (output !== undefined && output !== 'table' && output !== 'json')
    throw new UsageError('USAGE', `--output must be "table" or "json", got "${output}"`);
  const timeout = stringValue(globalValues.timeout);
  let timeoutSeconds: number | undefined;
  if (timeout !== undefined) {
    timeoutSeconds = Number(timeout.replace(/s$/, ''));
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
      throw new UsageError('USAGE', `--timeout must be a positive number of seconds, got "${timeout}"`);
  }
  const parsed: ParsedArgs = {
    global: {
      runtimeEndpoint:
        stringValue(globalValues['runtime-endpoint']) ?? nonEmpty(env.CONTAINER_RUNTIME_ENDPOINT) ?? DEFAULT_RUNTIME_ENDPOINT,
      imageEndpoint: stringValue(globalValues['image-endpoint']) ?? nonEmpty(env.IMAGE_SERVICE_ENDPOINT),
      timeoutSeconds,
      output,
    },
    command,
    flags,
    positionals,
  };
  validate(parsed);
  return parsed;
}

function validate(args: ParsedArgs): void {
  const need = (count: number, what: string): void => {
    if (args.positionals.length < count) throw new UsageError('USAGE', `"${args.command}" needs ${what}`);
  };
  switch (args.command) {
    case 'inspect':
    case 'inspectp':
      need(1, 'at least one ID');
      break;
    case 'exec':
      need(2, 'a container ID and a command');
      break;
    case 'logs':
      need(1, 'a container ID');
      if (args.positionals.length > 1) throw new UsageError('USAGE', '"logs" takes exactly one container ID');
      break;
    case 'pull':
      need(1, 'an image reference');
      break;
    case 'rmi':
      need(1, 'at least one image');
      break;
    default:
      break;
  }
  const tail = args.flags.tail;
  if (typeof tail === 'string' && !/^-?\d+$/.test(tail)) throw new UsageError('USAGE', `--tail must be an integer, got "${tail}"`);
  const creds = args.flags.creds;
  if (typeof creds === 'string' && !creds.includes(':')) throw new UsageError('USAGE', '--creds must be USERNAME:PASSWORD');
  const execTimeout = args.flags.timeout;
  if (typeof execTimeout === 'string' && !/^\d+$/.test(execTimeout))
    throw new UsageError('USAGE', `--timeout must be whole seconds, got "${execTimeout}"`);
  for (const label of asArray(args.flags.label)) {
    if (!label.includes('=')) throw new UsageError('USAGE', `--label must be KEY=VALUE, got "${label}"`);
  }
}

/** `--label a=b --label c=d` → { a: 'b', c: 'd' }. */
export function labelSelector(flags: ParsedArgs['flags']): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const label of asArray(flags.label)) {
    const eq = label.indexOf('=');
    selector[label.slice(0, eq)] = label.slice(eq + 1);
  }
  return selector;
}

function asArray(value: string | boolean | string[] | undefined): string[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

function splitFlag(arg: string): { name: string; inlineValue: string | undefined } {
  const body = arg.replace(/^--?/, '');
  const eq = body.indexOf('=');
  return eq === -1 ? { name: body, inlineValue: undefined } : { name: body.slice(0, eq), inlineValue: body.slice(eq + 1) };
}

function findFlag(specs: FlagSpec[], name: string): FlagSpec | undefined {
  return specs.find((spec) => spec.name === name || spec.short === name);
}

function stringValue(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
