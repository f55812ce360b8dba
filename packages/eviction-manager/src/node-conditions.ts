import type { PressureConditionType } from './constants.js';

/** A v1 NodeCondition (what the kubelet posts in node.status.conditions). */
export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Upstream nodestatus setters' reasons and messages per pressure condition. */
export const NODE_CONDITION_TEXT: Readonly<
  Record<PressureConditionType, { true: { reason: string; message: string }; false: { reason: string; message: string } }>
> = {
  MemoryPressure: {
    true: { reason: 'KubeletHasInsufficientMemory', message: 'kubelet has insufficient memory available' },
    false: { reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  },
  DiskPressure: {
    true: { reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' },
    false: { reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  },
  PIDPressure: {
    true: { reason: 'KubeletHasInsufficientPID', message: 'kubelet has insufficient PID available' },
    false: { reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  },
};
