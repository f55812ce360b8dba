import { isValidQuantity } from '@kubelet-ts/api';
import { durationError, normalizeDuration } from './duration.js';
import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';
import { parseEvictionMap } from './eviction.js';
import { KUBELET_FLAGS } from './flag-table.js';
import type { FlagSpec, KubeletFlagField } from './flag-table.js';

/** Command-line-only settings (upstream KubeletFlags): things that are per node and never in the config file. */
export interface KubeletFlags {
  /** --config */
  config?: string;
  /** --config-dir */
  configDir?: string;
  /** --kubeconfig; absent means standalone mode. */
  kubeconfig?: string;
  bootstrapKubeconfig?: string;
  /** --root-dir, default /var/lib/kubelet */
  rootDir: string;
  /** --cert-dir, default /var/lib/kubelet/pki */
  certDir: string;
  hostnameOverride?: string;
  nodeIP?: string;
  nodeLabels: Record<string, string>;
  cloudProvider?: string;
  lockFile?: string;
  exitOnLockContention: boolean;
  runtimeCgroups?: string;
  /** Kept from image GC, as upstream (the runtime chooses the sandbox image). */
  podInfraContainerImage?: string;
  imageCredentialProviderConfig?: string;
  imageCredentialProviderBinDir?: string;
  experimentalMounterPath?: string;
  minimumContainerTTLDuration?: string;
  maxPerPodContainerCount?: number;
  maxContainerCount?: number;
  /** --experimental-allocatable-ignore-eviction (deprecated upstream). */
  experimentalAllocatableIgnoreEviction: boolean;
  /** Flags accepted with no effect (the cAdvisor flags), by name, with their parsed values. */
  noOpFlags: Record<string, unknown>;
  /** kubelet-ts --static-object-dir: ConfigMap/Secret manifests static pods may reference. */
  staticObjectDir?: string;
  /** kubelet-ts --evict-static-pods: static pods not critical by priority may be evicted (default false, as upstream). */
  evictStaticPods: boolean;
  /**
   * kubelet-ts --max-parallel-starts: the most pod sandbox creations and container starts in the runtime
   * at once; 0 means unlimited (upstream). Absent: `defaultMaxParallelStarts()`.
   */
  maxParallelStarts?: number;
  /** --version: `true`, or `'raw'` for --version=raw. */
  version: boolean | 'raw';
  /** --help / -h */
  help: boolean;
  /** True when --kubeconfig is absent: the kubelet runs only static pods. */
  standalone: boolean;
}

/** The result of parsing argv: CLI flags, config-field overrides, and what went wrong. */
export interface ParsedKubeletArgs {
  flags: KubeletFlags;
  /** A partial KubeletConfiguration holding the values of config-field flags. */
  overrides: Record<string, unknown>;
  /** Config path (`evictionHard`, `authentication.anonymous.enabled`) → the flag that set it. */
  setBy: Map<string, string>;
  warnings: string[];
  errors: ConfigIssue[];
}

const BY_NAME = new Map<string, FlagSpec>(KUBELET_FLAGS.map((spec) => [spec.name, spec]));
const BY_SHORT = new Map<string, FlagSpec>(
  KUBELET_FLAGS.filter((spec) => spec.short !== undefined).map((spec) => [spec.short as string, spec]),
);

// Flags whose pflag value has NoOptDefVal: `--flag` alone means true.
const takesNoValue = (spec: FlagSpec): boolean => spec.kind === 'bool' || spec.kind === 'version';

/** cliflag.WordSepNormalizeFunc: `_` and `-` are the same in flag names. */
const normalizeName = (name: string): string => name.replaceAll('_', '-');

/** Go's strconv.ParseBool. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function parseInteger(value: string, bits: 32 | 64): number | string {
  if (!/^[+-]?\d+$/.test(value.trim())) return `invalid argument ${JSON.stringify(value)}: not an integer`;
  const n = Number(value);
  const limit = bits === 32 ? 2 ** 31 : 2 ** 63;
  if (n < -limit || n > limit - 1 || !Number.isSafeInteger(n)) return `invalid argument ${JSON.stringify(value)}: value out of range`;
  return n;
}

function splitPairs(value: string, separator: string): Array<[string, string]> | string {
  const out: Array<[string, string]> = [];
  for (const pair of value.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf(separator);
    if (at < 0) return `malformed pair ${JSON.stringify(pair)}, expect string${separator}string`;
    out.push([pair.slice(0, at).trim(), pair.slice(at + 1).trim()]);
  }
  return out;
}

/** `key=value:Effect` or `key:Effect` (utiltaints.ParseTaints). */
function parseTaints(value: string): Array<Record<string, string>> | string {
  const out: Array<Record<string, string>> = [];
  for (const spec of value.split(',')) {
    if (spec.trim() === '') continue;
    const colon = spec.lastIndexOf(':');
    if (colon < 0) return `invalid taint spec ${JSON.stringify(spec)}: expect key=value:effect`;
    const keyValue = spec.slice(0, colon);
    const effect = spec.slice(colon + 1);
    const eq = keyValue.indexOf('=');
    const taint: Record<string, string> = eq < 0 ? { key: keyValue } : { key: keyValue.slice(0, eq), value: keyValue.slice(eq + 1) };
    taint['effect'] = effect;
    out.push(taint);
  }
  return out;
}

/** `0:memory=1Gi,hugepages-1M=2Gi` (utilflag.ReservedMemoryVar). */
function parseReservedMemory(value: string): { numaNode: number; limits: Record<string, string> } | string {
  const colon = value.indexOf(':');
  if (colon < 0) return `invalid reserved memory ${JSON.stringify(value)}: expect <numa-node>:<resource>=<quantity>,...`;
  const numaNode = parseInteger(value.slice(0, colon), 32);
  if (typeof numaNode === 'string') return `invalid NUMA node in ${JSON.stringify(value)}`;
  const pairs = splitPairs(value.slice(colon + 1), '=');
  if (typeof pairs === 'string') return pairs;
  return { numaNode, limits: Object.fromEntries(pairs) };
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let holder = target;
  for (const key of keys.slice(0, -1)) {
    const next = holder[key];
    if (typeof next !== 'object' || next === null) holder[key] = {};
    holder = holder[key] as Record<string, unknown>;
  }
  holder[keys[keys.length - 1] as string] = value;
}

function getPath(target: Record<string, unknown>, path: string): unknown {
  let value: unknown = target;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const DEFAULT_FLAGS = (): KubeletFlags => ({
  rootDir: '/var/lib/kubelet',
  certDir: '/var/lib/kubelet/pki',
  nodeLabels: {},
  exitOnLockContention: false,
  experimentalAllocatableIgnoreEviction: false,
  noOpFlags: {},
  evictStaticPods: false,
  version: false,
  help: false,
  standalone: true,
});

/**
 * An argument as typed when it is plain printable ASCII, else JSON-quoted: a name with a newline or
 * an escape sequence must not split or forge the lines of the error output.
 */
function printable(text: string): string {
  return /^[\x21-\x7e]+$/.test(text) ? text : JSON.stringify(text);
}

/**
 * Parses kubelet command-line arguments the way pflag does: `--name=value`, `--name value`, `--bool`,
 * `--bool=false`, shorthands (`-v=4`, `-v 4`, `-v4`, `-h`), `_` as `-` in names, `--` ending flags.
 * Map and list flags replace the config file's value on their first occurrence and accumulate after.
 * Values are parsed to their wire form but not range-checked: validation does that, like file values.
 */
export function parseKubeletArgs(argv: readonly string[]): ParsedKubeletArgs {
  const flags = DEFAULT_FLAGS();
  const overrides: Record<string, unknown> = {};
  const setBy = new Map<string, string>();
  const warnings: string[] = [];
  const errors: ConfigIssue[] = [];
  const seen = new Set<string>();

  const fail = (spec: FlagSpec | string, reason: string): void => {
    const name = typeof spec === 'string' ? spec : spec.name;
    const path = typeof spec === 'string' || !('config' in spec.target) ? '' : spec.target.config;
    errors.push({ source: name.length === 1 ? `flag -${name}` : `flag --${name}`, path, reason });
  };

  const apply = (spec: FlagSpec, raw: string): void => {
    const first = !seen.has(spec.name);
    seen.add(spec.name);
    if (first && spec.deprecated !== undefined) warnings.push(`Flag --${spec.name} has been deprecated, ${spec.deprecated}`);
    const target = spec.target;
    const current = (): unknown =>
      'config' in target ? getPath(overrides, target.config) : 'flag' in target ? flags[target.flag] : flags.noOpFlags[spec.name];
    const parsed = parseValue(spec, raw, first ? undefined : current());
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      fail(spec, parsed.error);
      return;
    }
    const value = (parsed as { value: unknown }).value;
    if ('config' in target) {
      setPath(overrides, target.config, value);
      setBy.set(target.config, `flag --${spec.name}`);
    } else if ('flag' in target) {
      (flags as unknown as Record<KubeletFlagField, unknown>)[target.flag] = value;
    } else {
      flags.noOpFlags[spec.name] = value;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      for (const rest of argv.slice(i + 1))
        errors.push({ source: 'command line', path: '', reason: `unknown command ${JSON.stringify(rest)}` });
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      // kubelet takes no positional arguments
      errors.push({ source: 'command line', path: '', reason: `unknown command ${JSON.stringify(arg)}` });
      continue;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = normalizeName(eq < 0 ? body : body.slice(0, eq));
      // pflag: `--=x`, `---x` are "bad flag syntax" (no flag to name).
      if (name === '' || name.startsWith('-')) {
        errors.push({ source: 'command line', path: '', reason: `bad flag syntax: ${JSON.stringify(arg)}` });
        continue;
      }
      const spec = BY_NAME.get(name);
      if (spec === undefined) {
        const shown = printable(`--${name}`);
        errors.push({ source: `flag ${shown}`, path: '', reason: `unknown flag: ${shown}` });
        continue;
      }
      if (eq >= 0) apply(spec, body.slice(eq + 1));
      else if (takesNoValue(spec)) apply(spec, 'true');
      else if (i + 1 < argv.length) apply(spec, argv[++i] as string);
      else fail(spec, `flag needs an argument: --${name}`);
      continue;
    }
    // shorthand: -h, -v=4, -v 4, -v4
    const letter = arg.charAt(1);
    const spec = BY_SHORT.get(letter);
    if (spec === undefined) {
      errors.push({
        source: `flag ${printable(`-${letter}`)}`,
        path: '',
        reason: `unknown shorthand flag: '${letter}' in ${printable(arg)}`,
      });
      continue;
    }
    const rest = arg.slice(2);
    if (rest.startsWith('=')) apply(spec, rest.slice(1));
    else if (takesNoValue(spec)) {
      if (rest === '') apply(spec, 'true');
      else
        errors.push({
          source: `flag -${letter}`,
          path: '',
          reason: `unknown shorthand flag: ${JSON.stringify(rest.charAt(0))} in ${printable(arg)}`,
        });
    } else if (rest !== '') apply(spec, rest);
    else if (i + 1 < argv.length) apply(spec, argv[++i] as string);
    else fail(spec, `flag needs an argument: '${letter}' in -${letter}`);
  }

  flags.standalone = flags.kubeconfig === undefined || flags.kubeconfig === '';
  if (flags.podInfraContainerImage !== undefined) {
    warnings.push(
      '--pod-infra-container-image only keeps that image from image GC; the container runtime chooses the sandbox image (set it in the runtime configuration)',
    );
  }
  return { flags, overrides, setBy, warnings, errors };
}

type Parsed = { value: unknown } | { error: string };

function parseValue(spec: FlagSpec, raw: string, previous: unknown): Parsed {
  switch (spec.kind) {
    case 'string':
      return { value: raw };
    case 'bool': {
      const b = parseBool(raw);
      return b === undefined ? { error: `invalid argument ${JSON.stringify(raw)}: not a boolean` } : { value: b };
    }
    case 'version': {
      if (raw === 'raw') return { value: 'raw' };
      const b = parseBool(raw);
      return b === undefined ? { error: `invalid argument ${JSON.stringify(raw)}: expected true, false or raw` } : { value: b };
    }
    case 'int32':
    case 'int64':
    case 'level': {
      const n = parseInteger(raw, spec.kind === 'int64' ? 64 : 32);
      if (typeof n === 'string') return { error: n };
      if (spec.kind === 'level' && n < 0) return { error: `invalid argument ${JSON.stringify(raw)}: must not be negative` };
      return { value: n };
    }
    case 'float': {
      const n = Number(raw);
      return raw.trim() === '' || !Number.isFinite(n) ? { error: `invalid argument ${JSON.stringify(raw)}: not a number` } : { value: n };
    }
    case 'quantity':
      return isValidQuantity(raw) ? { value: raw } : { error: `invalid quantity ${JSON.stringify(raw)}` };
    case 'duration':
      return durationError(raw) === undefined ? { value: normalizeDuration(raw) } : { error: `invalid duration ${JSON.stringify(raw)}` };
    case 'stringSlice': {
      const items = raw === '' ? [] : raw.split(',').map((s) => s.trim());
      return { value: Array.isArray(previous) ? [...(previous as unknown[]), ...items] : items };
    }
    case 'map': {
      const pairs = splitPairs(raw, '=');
      if (typeof pairs === 'string') return { error: pairs };
      return { value: { ...(isRecord(previous) ? previous : {}), ...Object.fromEntries(pairs) } };
    }
    case 'langleMap': {
      try {
        return { value: { ...(isRecord(previous) ? previous : {}), ...parseEvictionMap(raw) } };
      } catch (err) {
        return { error: err instanceof ConfigError ? err.message : String(err) };
      }
    }
    case 'mapBool': {
      const pairs = splitPairs(raw, '=');
      if (typeof pairs === 'string') return { error: pairs };
      const out: Record<string, boolean> = { ...(isRecord(previous) ? (previous as Record<string, boolean>) : {}) };
      for (const [key, text] of pairs) {
        const b = parseBool(text);
        if (b === undefined) return { error: `invalid value of ${key}=${text}: not a boolean` };
        out[key] = b;
      }
      return { value: out };
    }
    case 'colonMultimap': {
      const pairs = splitPairs(raw, ':');
      if (typeof pairs === 'string') return { error: pairs };
      const out: Record<string, string[]> = structuredClone(isRecord(previous) ? (previous as Record<string, string[]>) : {});
      for (const [key, value] of pairs) (out[key] ??= []).push(value);
      return { value: out };
    }
    case 'taints': {
      const taints = parseTaints(raw);
      if (typeof taints === 'string') return { error: taints };
      return { value: [...(Array.isArray(previous) ? previous : []), ...taints] };
    }
    case 'reservedMemory': {
      const reservation = parseReservedMemory(raw);
      if (typeof reservation === 'string') return { error: reservation };
      return { value: [...(Array.isArray(previous) ? previous : []), reservation] };
    }
    case 'vmodule': {
      const pairs = splitPairs(raw, '=');
      if (typeof pairs === 'string') return { error: pairs };
      const out: Array<{ filePattern: string; verbosity: number }> = [];
      for (const [filePattern, level] of pairs) {
        const n = parseInteger(level, 32);
        if (typeof n === 'string' || n < 0) return { error: `invalid verbosity ${JSON.stringify(level)} for ${filePattern}` };
        out.push({ filePattern, verbosity: n });
      }
      return { value: out };
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `--help` text listing every flag, its target and whether it is deprecated. */
export function kubeletFlagUsage(): string {
  const lines = KUBELET_FLAGS.map((spec) => {
    const names =
      spec.short !== undefined && spec.short !== spec.name
        ? `-${spec.short}, --${spec.name}`
        : spec.name.length === 1
          ? `-${spec.name}, --${spec.name}`
          : `    --${spec.name}`;
    const note = spec.deprecated !== undefined ? ' (DEPRECATED)' : '';
    return `  ${names.padEnd(48)} ${spec.usage}${note}`;
  });
  return `Usage:\n  kubelet [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}
