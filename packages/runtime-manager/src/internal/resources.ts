import type { Container, Pod } from '@kubelet-ts/api';
import { getPodQOSClass, quantityMilliValue, quantityValue } from '@kubelet-ts/api';

// Upstream constants (pkg/kubelet/cm/helpers_linux.go, pkg/kubelet/qos/policy.go).
export const MIN_SHARES = 2;
export const MAX_SHARES = 262_144;
export const SHARES_PER_CPU = 1024;
export const MILLI_CPU_TO_CPU = 1000;
export const QUOTA_PERIOD_US = 100_000;
export const MIN_QUOTA_PERIOD_US = 1000;
export const GUARANTEED_OOM_SCORE_ADJ = -997;
export const BESTEFFORT_OOM_SCORE_ADJ = 1000;
export const KUBELET_OOM_SCORE_ADJ = -999;

/** Upstream MilliCPUToShares: 1 CPU = 1024 shares, at least 2, at most 262144. */
export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return MIN_SHARES;
  const shares = Math.floor((milliCpu * SHARES_PER_CPU) / MILLI_CPU_TO_CPU);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** Upstream MilliCPUToQuota: 0 (no limit) for no limit, else at least 1000 µs. */
export function milliCpuToQuota(milliCpu: number, periodUs: number): number {
  if (milliCpu === 0) return 0;
  const quota = Math.floor((milliCpu * periodUs) / MILLI_CPU_TO_CPU);
  return Math.max(MIN_QUOTA_PERIOD_US, quota);
}

/** Upstream GetContainerOOMScoreAdjust (without the critical-pod and node-critical special cases). */
export function containerOomScoreAdj(pod: Pod, container: Container, memoryCapacityBytes: number): number {
  const qos = getPodQOSClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  const request = container.resources?.requests?.['memory'];
  const memoryRequest = request === undefined ? 0 : quantityValue(request);
  // Burstable: the larger the share of node memory requested, the lower the score.
  const adj = 1000 - Math.trunc((1000 * memoryRequest) / memoryCapacityBytes);
  // A guaranteed container using all memory scores about 3: stay above it.
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  // And below best-effort containers.
  if (adj === BESTEFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}

export interface LinuxResources {
  cpuShares: number;
  cpuQuota: number;
  cpuPeriod: number;
  memoryLimitInBytes: number;
  oomScoreAdj: number;
}

/**
 * Upstream generateLinuxContainerResources: shares from the CPU request (or the limit when only a
 * limit is set), CFS quota from the limit over a 100 ms period, the memory limit, and the OOM
 * score adjustment of the pod's QoS class.
 */
export function linuxContainerResources(pod: Pod, container: Container, memoryCapacityBytes: number, cpuCfsQuota = true): LinuxResources {
  const cpuRequest = milliOf(container.resources?.requests?.['cpu']);
  const cpuLimit = milliOf(container.resources?.limits?.['cpu']);
  const memoryLimit = container.resources?.limits?.['memory'];
  const cpuShares = cpuRequest === 0 && cpuLimit !== 0 ? milliCpuToShares(cpuLimit) : milliCpuToShares(cpuRequest);
  return {
    cpuShares,
    cpuQuota: cpuCfsQuota ? milliCpuToQuota(cpuLimit, QUOTA_PERIOD_US) : 0,
    cpuPeriod: cpuCfsQuota ? QUOTA_PERIOD_US : 0,
    memoryLimitInBytes: memoryLimit === undefined ? 0 : quantityValue(memoryLimit),
    oomScoreAdj: containerOomScoreAdj(pod, container, memoryCapacityBytes),
  };
}

function milliOf(q: string | number | undefined): number {
  return q === undefined ? 0 : quantityMilliValue(q);
}
