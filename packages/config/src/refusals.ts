import { parseDuration } from './duration.js';
import { KUBELET_CLI_FLAGS } from './flag-table.js';
import type { KubeletFlagField } from './flag-table.js';
import type { KubeletFlags } from './flags.js';
import { CLI_FLAG_SETTINGS, CONFIG_FIELD_SETTINGS } from './settings-registry.js';
import type { SettingSpec } from './settings-registry.js';

/** A setting kubelet-ts refuses: a config path (`cpuManagerPolicy`) or a flag (`--lock-file`), and why. */
export interface RefusedSetting {
  /** The config path, or `--flag` for a command-line-only flag. */
  name: string;
  reason: string;
}

function getPath(obj: unknown, path: string): unknown {
  let value = obj;
  for (const key of path.split('.'))
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isEmpty);
  if (typeof value === 'string') {
    try {
      return parseDuration(value) === 0;
    } catch {
      return false;
    }
  }
  return false;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (b === undefined) return isEmpty(a); // upstream's Go zero value
  if (typeof a === 'string' && typeof b === 'string' && a !== b) {
    try {
      return parseDuration(a) === parseDuration(b);
    } catch {
      return false;
    }
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How a value reads in a message: Go's zero value for an unset field of that type. */
function show(value: unknown, like: unknown): string {
  if (value !== undefined) return JSON.stringify(value);
  if (typeof like === 'boolean') return 'false';
  if (typeof like === 'number') return '0';
  if (typeof like === 'string') return '""';
  return 'unset';
}

function check(spec: SettingSpec, value: unknown, defaultValue: unknown): string | undefined {
  if (spec.status === 'implemented') return spec.unsupported?.(value);
  if (spec.status !== 'refused' || sameValue(value, defaultValue) || spec.accepts?.(value) === true) return undefined;
  return `kubelet-ts does not support ${show(value, defaultValue)} yet (only the default ${show(defaultValue, value)})`;
}

const FLAG_FIELDS = new Map<string, KubeletFlagField>(
  KUBELET_CLI_FLAGS.flatMap((spec) => ('flag' in spec.target ? [[`--${spec.name}`, spec.target.flag] as [string, KubeletFlagField]] : [])),
);

/**
 * The settings of `config` and `flags` that kubelet-ts does not act on and that differ from upstream's
 * default (`defaults`: a configuration with nothing set), plus the unsupported values of settings it
 * only partly does. Each one stops the kubelet: nothing is silently ignored.
 */
export function refusedSettings(
  config: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
  flags: Readonly<KubeletFlags>,
): RefusedSetting[] {
  const out: RefusedSetting[] = [];
  for (const spec of CONFIG_FIELD_SETTINGS) {
    const reason = check(spec, getPath(config, spec.name), getPath(defaults, spec.name));
    if (reason !== undefined) out.push({ name: spec.name, reason });
  }
  for (const spec of CLI_FLAG_SETTINGS) {
    const field = FLAG_FIELDS.get(spec.name);
    if (field === undefined) continue;
    const reason = check(spec, flags[field], undefined);
    if (reason !== undefined) out.push({ name: spec.name, reason });
  }
  return out;
}
