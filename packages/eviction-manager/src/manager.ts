import { admitUnderPressure } from './admission.js';
import { NodeConditionType } from './constants.js';
import type { PressureConditionType } from './constants.js';
import { createEvictionContext, podKey } from './internal/context.js';
import { runControlLoop } from './internal/control-loop.js';
import { createPressureConditions } from './internal/pressure-conditions.js';
import { synchronize } from './internal/synchronize.js';
import type { EvictionState } from './internal/synchronize.js';
import { createThresholdState } from './internal/threshold-state.js';
import type { EvictionManager, EvictionManagerOptions } from './types.js';

export type {
  ConditionChangeListener,
  EvictionManager,
  EvictionManagerOptions,
  EvictionPodCondition,
  KillPodFn,
  KillPodRequest,
  NodeReclaimFn,
} from './types.js';

/**
 * Upstream eviction.NewManager: the context from the options, the state synchronize keeps between
 * passes (thresholds observed, pressure conditions), and the control loop over them.
 */
export function createEvictionManager(options: EvictionManagerOptions): EvictionManager {
  const ctx = createEvictionContext(options);
  const { logger } = ctx;
  const conditions = createPressureConditions(ctx.clock, logger);
  const state: EvictionState = { thresholds: createThresholdState(ctx.thresholds, ctx.transitionPeriodMs), conditions };
  const sync = (abort?: AbortSignal): ReturnType<EvictionManager['synchronize']> => synchronize(ctx, state, abort);
  const under = (type: PressureConditionType): boolean => conditions.current().includes(type);

  return {
    run: (signal) => runControlLoop(ctx, sync, signal),
    synchronize: sync,
    admit(pod) {
      const current = conditions.current();
      const result = admitUnderPressure(pod, current, ctx.critical);
      if (!result.admit) logger.info('Failed to admit pod to node', { pod: podKey(pod), nodeCondition: current });
      return result;
    },
    pressureConditions: () => [...conditions.current()],
    isUnderMemoryPressure: () => under(NodeConditionType.MemoryPressure),
    isUnderDiskPressure: () => under(NodeConditionType.DiskPressure),
    isUnderPIDPressure: () => under(NodeConditionType.PIDPressure),
    nodeConditions: () => conditions.nodeConditions(),
    onConditionChange: (listener) => conditions.onChange(listener),
    thresholds: ctx.thresholds,
  };
}
