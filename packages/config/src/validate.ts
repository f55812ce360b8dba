import { isAbsolute, posix } from 'node:path';
import { parseQuantity } from '@kubelet-ts/api';
import type { z } from 'zod';
import { parseDuration } from './duration.js';
import type { KubeletConfiguration } from './defaults.js';
import { kubeletConfigurationSchema } from './schema.js';
import type { KubeletConfigurationInput } from './schema.js';

/** A problem in a configuration document, before it is attributed to a source. */
export interface FieldIssue {
  path: string;
  reason: string;
}

/**
 * `['evictionHard', 'memory.available']` → `evictionHard.memory.available`; indices as `[2]`. Map keys
 * are dotted as upstream's KubeletConfiguration validation writes them, unlike api's `formatPath`
 * for pod fields (`limits[nvidia.com/gpu]`).
 */
function formatConfigPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Turns zod's issues into field paths and reasons; unknown keys become one `unknown field` each. */
export function fieldIssuesFromZod(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path as PropertyKey[];
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push({ path: formatConfigPath([...path, key]), reason: 'unknown field' });
        break;
      case 'invalid_type': {
        const input = (issue as { input?: unknown }).input;
        out.push({
          path: formatConfigPath(path),
          reason: input === undefined ? 'required' : `expected ${issue.expected}, got ${describe(input)}`,
        });
        break;
      }
      case 'invalid_union':
        out.push({ path: formatConfigPath(path), reason: 'expected a duration string (e.g. "5s") or a number of nanoseconds' });
        break;
      default:
        out.push({ path: formatConfigPath(path), reason: issue.message });
    }
  }
  return out;
}

/** Drops keys whose value is null, recursively: a YAML `field: ~` means "not set", as with Go's decoder. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = dropNulls(v);
  return out;
}

/**
 * Field-level validation of one document (file or flags): types, ranges, enums, durations, unknown fields.
 * With `unknownFields: 'warn'` unknown fields are dropped and returned in `ignored` instead of `issues`
 * (upstream's lenient fallback).
 */
export function validateDocument(
  doc: unknown,
  options: { unknownFields?: 'error' | 'warn' } = {},
): { value?: KubeletConfigurationInput; issues: FieldIssue[]; ignored: string[] } {
  let input = dropNulls(doc);
  const ignored: string[] = [];
  let result = kubeletConfigurationSchema.safeParse(input, { reportInput: true });
  if (!result.success && options.unknownFields === 'warn') {
    const unknown = result.error.issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 0) {
      input = structuredClone(input);
      for (const issue of unknown) {
        let holder: unknown = input;
        for (const key of issue.path) holder = (holder as Record<PropertyKey, unknown>)[key as PropertyKey];
        for (const key of issue.keys) {
          delete (holder as Record<string, unknown>)[key];
          ignored.push(formatConfigPath([...(issue.path as PropertyKey[]), key]));
        }
      }
      result = kubeletConfigurationSchema.safeParse(input, { reportInput: true });
    }
  }
  if (result.success) return { value: result.data, issues: [], ignored };
  return { issues: fieldIssuesFromZod(result.error), ignored };
}

/** Go's filepath.Clean for absolute POSIX paths. */
const cleanPath = (p: string): string => (p === '/' ? '/' : posix.normalize(p).replace(/\/+$/, '') || '/');

const ms = (value: string | undefined): number => {
  if (value === undefined) return 0;
  try {
    return parseDuration(value);
  } catch {
    return Number.NaN;
  }
};

/**
 * The rules of upstream's ValidateKubeletConfiguration that span fields or depend on defaults, run on the
 * final (defaulted, flag-overridden) configuration. Feature-gate-dependent rules are not checked.
 */
export function validateKubeletConfiguration(kc: KubeletConfiguration): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const add = (path: string, reason: string): void => {
    issues.push({ path, reason });
  };

  if (kc.nodeLeaseDurationSeconds <= 0) add('nodeLeaseDurationSeconds', 'must be greater than 0');
  if ((kc.systemCgroups ?? '') !== '' && (kc.cgroupRoot ?? '') === '') add('systemCgroups', 'requires cgroupRoot to be set');
  if (kc.port < 1 || kc.port > 65535) add('port', 'must be between 1 and 65535');
  if (kc.imageGCLowThresholdPercent >= kc.imageGCHighThresholdPercent) {
    add(
      'imageGCHighThresholdPercent',
      `must be greater than imageGCLowThresholdPercent (${kc.imageGCHighThresholdPercent} <= ${kc.imageGCLowThresholdPercent})`,
    );
  }
  const maxAge = ms(kc.imageMaximumGCAge);
  if (maxAge < 0) add('imageMaximumGCAge', 'must not be negative');
  if (ms(kc.imageMinimumGCAge) < 0) add('imageMinimumGCAge', 'must not be negative');
  if (maxAge > 0 && maxAge <= ms(kc.imageMinimumGCAge))
    add('imageMaximumGCAge', `must be greater than imageMinimumGCAge (${kc.imageMinimumGCAge})`);
  const cfsPeriod = ms(kc.cpuCFSQuotaPeriod);
  if (!(cfsPeriod >= 1 && cfsPeriod <= 1000)) add('cpuCFSQuotaPeriod', 'must be between 1ms and 1s, inclusive');
  if (kc.serializeImagePulls && kc.maxParallelImagePulls !== undefined && kc.maxParallelImagePulls > 1) {
    add('maxParallelImagePulls', 'cannot be larger than 1 unless serializeImagePulls is false');
  }
  if (kc.runOnce === true) add('runOnce', 'runonce mode has been removed and must not be set');
  if (kc.registerWithTaints?.some((t) => t.timeAdded !== undefined)) add('registerWithTaints', 'timeAdded must not be set');

  // enforceNodeAllocatable
  const enforce = kc.enforceNodeAllocatable;
  const has = (key: string): boolean => enforce.includes(key as (typeof enforce)[number]);
  if (has('system-reserved') && has('system-reserved-compressible')) {
    add('enforceNodeAllocatable', '"system-reserved" and "system-reserved-compressible" cannot be specified together');
  }
  if (has('kube-reserved') && has('kube-reserved-compressible')) {
    add('enforceNodeAllocatable', '"kube-reserved" and "kube-reserved-compressible" cannot be specified together');
  }
  const unique = new Set<string>();
  for (const [i, value] of enforce.entries()) {
    const path = `enforceNodeAllocatable[${i}]`;
    if (unique.has(value)) {
      add(path, `duplicated enforcement ${JSON.stringify(value)}`);
      continue;
    }
    unique.add(value);
    if (value === 'none') {
      if (enforce.length > 1) add(path, '"none" may not be combined with other enforcements');
      continue;
    }
    if (value.startsWith('system-reserved') && (kc.systemReservedCgroup ?? '') === '')
      add('systemReservedCgroup', `must be specified when ${JSON.stringify(value)} is in enforceNodeAllocatable`);
    if (value.startsWith('kube-reserved') && (kc.kubeReservedCgroup ?? '') === '')
      add('kubeReservedCgroup', `must be specified when ${JSON.stringify(value)} is in enforceNodeAllocatable`);
    if (!kc.cgroupsPerQOS) add('cgroupsPerQOS', `must be true when ${JSON.stringify(value)} is in enforceNodeAllocatable`);
  }

  if ((kc.reservedSystemCPUs ?? '') !== '') {
    if ((kc.systemReservedCgroup ?? '') !== '' || (kc.kubeReservedCgroup ?? '') !== '') {
      add('reservedSystemCPUs', 'cannot be used with systemReservedCgroup or kubeReservedCgroup');
    }
    if (!/^\s*\d+(-\d+)?(\s*,\s*\d+(-\d+)?)*\s*$/.test(kc.reservedSystemCPUs ?? ''))
      add('reservedSystemCPUs', `invalid CPU list ${JSON.stringify(kc.reservedSystemCPUs)}`);
  }
  issues.push(...validateReservedMemoryConfiguration(kc));
  if (kc.shutdownGracePeriodCriticalPods !== undefined && ms(kc.shutdownGracePeriodCriticalPods) > ms(kc.shutdownGracePeriod)) {
    add('shutdownGracePeriodCriticalPods', `must be <= shutdownGracePeriod (${kc.shutdownGracePeriod})`);
  }
  for (const field of ['shutdownGracePeriod', 'shutdownGracePeriodCriticalPods'] as const) {
    const value = ms(kc[field]);
    if (value < 0 || (value > 0 && value < 1000)) add(field, 'must be either zero or otherwise >= 1s');
  }
  if (
    (kc.shutdownGracePeriodByPodPriority?.length ?? 0) > 0 &&
    (ms(kc.shutdownGracePeriod) > 0 || ms(kc.shutdownGracePeriodCriticalPods) > 0)
  ) {
    add('shutdownGracePeriodByPodPriority', 'cannot be specified together with shutdownGracePeriod');
  }
  const restart = kc.crashLoopBackOff?.maxContainerRestartPeriod;
  if (restart !== undefined && !(ms(restart) >= 1000 && ms(restart) <= 300_000)) {
    add('crashLoopBackOff.maxContainerRestartPeriod', 'must be between 1s and 300s');
  }
  if (!(kc.memoryThrottlingFactor > 0 && kc.memoryThrottlingFactor <= 1))
    add('memoryThrottlingFactor', 'must be greater than 0 and less than or equal to 1.0');
  if (kc.containerRuntimeEndpoint === '') add('containerRuntimeEndpoint', 'must not be empty');
  if (kc.enableSystemLogQuery === true && !kc.enableSystemLogHandler) add('enableSystemLogQuery', 'requires enableSystemLogHandler');
  if (kc.containerLogMaxFiles <= 1) add('containerLogMaxFiles', 'must be greater than 1');
  if (ms(kc.containerLogMonitorInterval) < 3000) add('containerLogMonitorInterval', 'must be a duration of at least 3s');
  if (!isAbsolute(kc.podLogsDir)) add('podLogsDir', `${JSON.stringify(kc.podLogsDir)} must be an absolute path`);
  else if (cleanPath(kc.podLogsDir) !== kc.podLogsDir)
    add('podLogsDir', `${JSON.stringify(kc.podLogsDir)} must be normalized (${cleanPath(kc.podLogsDir)})`);
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(kc.podLogsDir)) add('podLogsDir', 'must contain ASCII characters only');
  if (!isAbsolute(kc.containerLogsDir)) add('containerLogsDir', `${JSON.stringify(kc.containerLogsDir)} must be an absolute path`);
  else if (cleanPath(kc.containerLogsDir) !== kc.containerLogsDir)
    add('containerLogsDir', `${JSON.stringify(kc.containerLogsDir)} must be normalized (${cleanPath(kc.containerLogsDir)})`);
  if (kc.logging.format !== 'text' && kc.logging.format !== 'json')
    add('logging.format', `unsupported format ${JSON.stringify(kc.logging.format)}: must be "text" or "json"`);
  return issues;
}

const RESERVED_MEMORY_TYPES = '[memory hugepages-<HugePageSize>]';

/** Upstream validateReservedMemoryConfiguration: memory and huge pages only, none zero, one entry per NUMA node and type. */
export function validateReservedMemoryConfiguration(kc: Pick<KubeletConfiguration, 'reservedMemory'>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const [i, reservation] of (kc.reservedMemory ?? []).entries()) {
    const node = reservation.numaNode;
    for (const [name, quantity] of Object.entries(reservation.limits)) {
      const path = `reservedMemory[${i}].limits.${name}`;
      if (name !== 'memory' && !name.startsWith('hugepages-'))
        issues.push({
          path,
          reason: `the limit type ${JSON.stringify(name)} for NUMA node ${node} is not supported, only ${RESERVED_MEMORY_TYPES} is accepted`,
        });
      if (parseQuantity(quantity) === 0)
        issues.push({ path, reason: `reserved memory may not be zero for NUMA node ${node} and resource ${JSON.stringify(name)}` });
      if (seen.has(`${node}/${name}`))
        issues.push({
          path,
          reason: `the reserved memory has a duplicate value for NUMA node ${node} and resource ${JSON.stringify(name)}`,
        });
      seen.add(`${node}/${name}`);
    }
  }
  return issues;
}
