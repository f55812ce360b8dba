import type { Container, Pod, Quantity } from '@kubelet-ts/api';
import {
  getPodQOSClass,
  hasPodLevelLimit,
  isRestartableInitContainer,
  podLimits,
  podRequests,
  quantityMilliValue,
  quantityValue,
} from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { CgroupError } from './errors.js';

/**
 * The settings of one cgroup, driver- and version-independent (upstream cm.ResourceConfig).
 * Undefined fields are left alone.
 */
export interface ResourceConfig {
  /** cgroup v1 cpu.shares (2…262144); converted to cpu.weight on v2. */
  cpuShares?: number;
  /** CFS quota in µs per period; -1 = unlimited. */
  cpuQuotaUs?: number;
  /** CFS period in µs. */
  cpuPeriodUs?: number;
  /** Memory limit in bytes; -1 = unlimited. */
  memoryLimitBytes?: number;
  /** Maximum number of tasks; -1 = unlimited. */
  pidsLimit?: number;
}

/** Upstream MinShares / MaxShares / SharesPerCPU / MilliCPUToCPU / QuotaPeriod / MinQuotaPeriod. */
export const MIN_SHARES = 2;
export const MAX_SHARES = 262_144;
export const SHARES_PER_CPU = 1024;
export const DEFAULT_CPU_PERIOD_US = 100_000;
export const MIN_QUOTA_US = 1_000;

/** millicores × 1024 / 1000, at least 2, at most 262144 (upstream MilliCPUToShares). */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU <= 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / 1000);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** The CFS quota for a cpu limit: millicores × period / 1000, at least 1 ms; 0 when there is no limit (upstream MilliCPUToQuota). */
export function milliCPUToQuota(milliCPU: number, periodUs: number = DEFAULT_CPU_PERIOD_US): number {
  if (milliCPU <= 0) return 0;
  return Math.max(MIN_QUOTA_US, Math.floor((milliCPU * periodUs) / 1000));
}

/**
 * cgroup v1 shares → cgroup v2 cpu.weight with the formula of runc ≥ 1.3.2 / 1.4 and crun ≥ 1.23
 * (opencontainers/cgroups ConvertCPUSharesToCgroupV2Value): a quadratic in log2(shares) that maps
 * 2 → 1, 1024 → 100 and 262144 → 10000. It replaced the linear `1 + (shares − 2) × 9999 / 262142`,
 * which gave the default 1024 shares a weight of 39 instead of the v2 default 100, so a
 * container with 1 cpu requested got less than an unconfigured process. We match the runtime so
 * that pod and container cgroups use the same scale.
 */
export function cpuSharesToWeight(shares: number): number {
  if (shares <= 0) return 0;
  if (shares <= MIN_SHARES) return 1;
  if (shares >= MAX_SHARES) return 10_000;
  const l = Math.log2(shares);
  const exponent = (l * l + 125 * l) / 612 - 7 / 34;
  return Math.ceil(10 ** exponent);
}

/** cpu requests in millicores and memory in bytes. */
export interface PodResourceAmounts {
  cpuMilli: number;
  memoryBytes: number;
}

function invalidResources(pod: Pod, where: string, err: unknown): CgroupError {
  return new CgroupError('INVALID_RESOURCES', `pod ${pod.metadata.namespace}/${pod.metadata.name}: ${where} is not a valid quantity`, {
    cause: err,
  });
}

function amount(pod: Pod, container: Container, kind: 'requests' | 'limits', resource: 'cpu' | 'memory'): number {
  const value: Quantity | undefined = container.resources?.[kind]?.[resource];
  if (value === undefined) return 0;
  try {
    return resource === 'cpu' ? quantityMilliValue(value) : quantityValue(value);
  } catch (err) {
    throw invalidResources(pod, `container ${JSON.stringify(container.name)}: resources.${kind}.${resource} ${JSON.stringify(value)}`, err);
  }
}

function checkRequestsWithinLimits(pod: Pod, container: Container): void {
  for (const resource of ['cpu', 'memory'] as const) {
    const limit = amount(pod, container, 'limits', resource);
    const request = amount(pod, container, 'requests', resource);
    if (limit > 0 && request > limit) {
      throw new CgroupError(
        'INVALID_RESOURCES',
        `pod ${pod.metadata.namespace}/${pod.metadata.name}: container ${JSON.stringify(container.name)}: ${resource} request ${String(container.resources?.requests?.[resource])} is above its limit ${String(container.resources?.limits?.[resource])}`,
      );
    }
  }
}

/**
 * The pod's effective cpu and memory requests or limits (@kubelet-ts/api's podRequests and
 * podLimits: containers and sidecars summed, or the largest init container plus the sidecars
 * started before it when that is more, pod-level resources overriding, plus the overhead).
 * @throws CgroupError `INVALID_RESOURCES` for a quantity that does not parse.
 */
export function podResourceAmounts(pod: Pod, kind: 'requests' | 'limits'): PodResourceAmounts {
  const onInvalid = (where: string, err: unknown): never => {
    throw new CgroupError('INVALID_RESOURCES', `pod ${pod.metadata.namespace}/${pod.metadata.name}: ${where}: ${errorMessage(err)}`, {
      cause: err,
    });
  };
  const amounts = kind === 'requests' ? podRequests(pod, { onInvalid }) : podLimits(pod, { onInvalid });
  return { cpuMilli: amounts.get('cpu') ?? 0, memoryBytes: amounts.get('memory') ?? 0 };
}

export interface PodResourceConfigOptions {
  /** Set a CFS quota from cpu limits (config `cpuCFSQuota`). Default true. */
  enforceCpuLimits?: boolean;
  /** CFS period in µs (config `cpuCFSQuotaPeriod`). Default 100 ms. */
  cpuPeriodUs?: number;
  /** `podPidsLimit`; -1 or undefined = none. */
  podPidsLimit?: number;
}

/**
 * The pod cgroup's settings (upstream ResourceConfigForPod): cpu shares from the requests (2 for
 * BestEffort), a CFS quota when every container limits cpu, a memory limit only when every
 * container limits memory (the sum, or the largest init container when that is more), and the
 * pod pids limit.
 * @throws CgroupError `INVALID_RESOURCES` for a quantity that does not parse or a request above its limit.
 */
export function resourceConfigForPod(pod: Pod, options: PodResourceConfigOptions = {}): ResourceConfig {
  const containers = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  for (const c of containers) checkRequestsWithinLimits(pod, c);
  const requests = podResourceAmounts(pod, 'requests');
  const limits = podResourceAmounts(pod, 'limits');
  const running = [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter(isRestartableInitContainer)];
  // Pod-level limits declare the limit for the whole pod, whatever its containers say (upstream).
  const cpuLimitsDeclared = hasPodLevelLimit(pod, 'cpu') || running.every((c) => amount(pod, c, 'limits', 'cpu') > 0);
  const memoryLimitsDeclared = hasPodLevelLimit(pod, 'memory') || running.every((c) => amount(pod, c, 'limits', 'memory') > 0);
  const periodUs = options.cpuPeriodUs ?? DEFAULT_CPU_PERIOD_US;
  const quota = options.enforceCpuLimits === false ? -1 : milliCPUToQuota(limits.cpuMilli, periodUs);
  const out: ResourceConfig = {};
  switch (getPodQOSClass(pod)) {
    case 'Guaranteed':
      out.cpuShares = milliCPUToShares(requests.cpuMilli);
      out.cpuQuotaUs = quota;
      out.cpuPeriodUs = periodUs;
      out.memoryLimitBytes = limits.memoryBytes;
      break;
    case 'Burstable':
      out.cpuShares = milliCPUToShares(requests.cpuMilli);
      if (cpuLimitsDeclared) {
        out.cpuQuotaUs = quota;
        out.cpuPeriodUs = periodUs;
      }
      if (memoryLimitsDeclared) out.memoryLimitBytes = limits.memoryBytes;
      break;
    default:
      out.cpuShares = MIN_SHARES;
  }
  if (out.cpuQuotaUs === 0) delete out.cpuQuotaUs;
  if (options.podPidsLimit !== undefined && options.podPidsLimit > 0) out.pidsLimit = options.podPidsLimit;
  return out;
}
