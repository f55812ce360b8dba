import { formatTime } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PressureConditionType } from '../constants.js';
import { NODE_CONDITION_TEXT } from '../node-conditions.js';
import type { NodeCondition } from '../node-conditions.js';
import type { ConditionChangeListener } from '../types.js';

export const CONDITION_ORDER: readonly PressureConditionType[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** The pressure conditions in effect (upstream managerImpl.nodeConditions) and what the node status shows of them. */
export interface PressureConditions {
  /** The conditions now in effect, in CONDITION_ORDER. */
  current(): readonly PressureConditionType[];
  /** This pass's conditions: logs each transition and tells the listeners when the set changed. */
  set(next: readonly PressureConditionType[], now: number): void;
  /** Upstream nodestatus MemoryPressureCondition, DiskPressureCondition and PIDPressureCondition. */
  nodeConditions(): NodeCondition[];
  onChange(listener: ConditionChangeListener): () => void;
}

export function createPressureConditions(clock: Clock, logger: Logger): PressureConditions {
  let conditions: PressureConditionType[] = [];
  const transitionAt = new Map<PressureConditionType, number>(CONDITION_ORDER.map((c) => [c, clock.now()]));
  let heartbeat = clock.now();
  const listeners = new Set<ConditionChangeListener>();

  const notify = (sorted: readonly PressureConditionType[]): void => {
    for (const listener of listeners) {
      try {
        listener([...sorted]);
      } catch (err) {
        logger.error('Node condition listener failed', { err: errorMessage(err) });
      }
    }
  };

  return {
    current: () => conditions,
    set(next, now) {
      const sorted = CONDITION_ORDER.filter((c) => next.includes(c));
      const before = new Set(conditions);
      const changed = sorted.length !== conditions.length || sorted.some((c) => !before.has(c));
      heartbeat = now;
      if (!changed) return;
      for (const type of CONDITION_ORDER) {
        const was = before.has(type);
        const is = sorted.includes(type);
        if (was === is) continue;
        transitionAt.set(type, now);
        const text = NODE_CONDITION_TEXT[type][is ? 'true' : 'false'];
        logger.info('Node condition changed', { condition: type, status: is ? 'True' : 'False', reason: text.reason });
      }
      conditions = sorted;
      notify(sorted);
    },
    nodeConditions() {
      return CONDITION_ORDER.map((type) => {
        const is = conditions.includes(type);
        const text = NODE_CONDITION_TEXT[type][is ? 'true' : 'false'];
        return {
          type,
          status: is ? 'True' : 'False',
          lastHeartbeatTime: formatTime(heartbeat),
          lastTransitionTime: formatTime(transitionAt.get(type) ?? heartbeat),
          reason: text.reason,
          message: text.message,
        };
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
