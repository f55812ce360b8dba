import type { Pod, Toleration } from '@kubelet-ts/api';
import { getPodQOSClass } from '@kubelet-ts/api';
import type { PressureConditionType } from './constants.js';
import { EVICTED_REASON, TAINT_NODE_MEMORY_PRESSURE } from './constants.js';
import type { CriticalPodOptions } from './critical.js';
import { isCriticalPod } from './critical.js';
import { MessageFormat } from './messages.js';

/** Upstream lifecycle.PodAdmitResult. */
export interface PodAdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

/** Upstream TolerationsTolerateTaint for a NoSchedule taint without a value. */
function toleratesNoScheduleTaint(tolerations: readonly Toleration[] | undefined, key: string): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== 'NoSchedule') return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === key;
    return t.key === key && (t.value ?? '') === '';
  });
}

/**
 * Upstream managerImpl.Admit: no pressure admits everything; critical pods are always admitted;
 * under memory pressure alone only BestEffort pods are refused (unless they tolerate the
 * memory-pressure taint); under any other pressure every non-critical pod is refused.
 */
export function admitUnderPressure(
  pod: Pod,
  conditions: readonly PressureConditionType[],
  options: CriticalPodOptions = {},
): PodAdmitResult {
  if (conditions.length === 0) return { admit: true };
  if (isCriticalPod(pod, options)) return { admit: true };
  if (conditions.length === 1 && conditions[0] === 'MemoryPressure') {
    if (getPodQOSClass(pod) !== 'BestEffort') return { admit: true };
    if (toleratesNoScheduleTaint(pod.spec.tolerations, TAINT_NODE_MEMORY_PRESSURE)) return { admit: true };
  }
  return { admit: false, reason: EVICTED_REASON, message: MessageFormat.nodeCondition(conditions) };
}
