import type { Pod } from '@kubelet-ts/api';
import { admitUnderPressure } from '../admission.js';
import type { PodAdmitResult } from '../admission.js';
import type { PressureConditionType } from '../constants.js';
import { NODE_CONDITION_TEXT } from '../node-conditions.js';
import type { NodeCondition } from '../node-conditions.js';
import type { ConditionChangeListener, EvictionManager } from '../manager.js';
import type { EvictionThreshold } from '../thresholds.js';

const ORDER: readonly PressureConditionType[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

/**
 * An {@link EvictionManager} whose pressure conditions are set by the test (`setConditions`);
 * admission follows upstream's rules over them; `synchronize` records calls and evicts nothing.
 */
export class FakeEvictionManager implements EvictionManager {
  readonly thresholds: readonly EvictionThreshold[] = [];
  /** Every pod passed to `admit`, in order. */
  readonly admitCalls: Pod[] = [];
  synchronizeCalls = 0;
  #conditions: PressureConditionType[] = [];
  #listeners = new Set<ConditionChangeListener>();
  readonly #evictStaticPods: boolean;

  constructor(options: { conditions?: PressureConditionType[]; evictStaticPods?: boolean } = {}) {
    this.#conditions = [...(options.conditions ?? [])];
    this.#evictStaticPods = options.evictStaticPods === true;
  }

  setConditions(conditions: PressureConditionType[]): void {
    this.#conditions = ORDER.filter((c) => conditions.includes(c));
    for (const l of this.#listeners) l([...this.#conditions]);
  }

  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  async synchronize(): Promise<Pod[]> {
    this.synchronizeCalls++;
    return [];
  }

  admit(pod: Pod): PodAdmitResult {
    this.admitCalls.push(pod);
    return admitUnderPressure(pod, this.#conditions, { evictStaticPods: this.#evictStaticPods });
  }

  pressureConditions(): PressureConditionType[] {
    return [...this.#conditions];
  }

  isUnderMemoryPressure(): boolean {
    return this.#conditions.includes('MemoryPressure');
  }

  isUnderDiskPressure(): boolean {
    return this.#conditions.includes('DiskPressure');
  }

  isUnderPIDPressure(): boolean {
    return this.#conditions.includes('PIDPressure');
  }

  nodeConditions(): NodeCondition[] {
    const now = new Date(0).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return ORDER.map((type) => {
      const is = this.#conditions.includes(type);
      const text = NODE_CONDITION_TEXT[type][is ? 'true' : 'false'];
      return {
        type,
        status: is ? 'True' : 'False',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
        reason: text.reason,
        message: text.message,
      };
    });
  }

  onConditionChange(listener: ConditionChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
