import { newPod } from '@kubelet-ts/api/testing';
import { FakeEvictionManager } from './fake-eviction-manager.js';

describe('FakeEvictionManager', () => {
  it('admits by upstream rules over the conditions the test sets, and reports them', () => {
    const fake = new FakeEvictionManager();
    const be = newPod({ name: 'be' });
    const seen: string[][] = [];
    fake.onConditionChange((c) => seen.push([...c]));
    expect(fake.admit(be)).toEqual({ admit: true });
    fake.setConditions(['MemoryPressure']);
    expect(fake.admit(be)).toEqual({ admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
    expect(fake.isUnderMemoryPressure()).toBe(true);
    expect(fake.nodeConditions().find((c) => c.type === 'MemoryPressure')?.reason).toBe('KubeletHasInsufficientMemory');
    expect(fake.admitCalls).toHaveLength(2);
    expect(seen).toEqual([['MemoryPressure']]);
  });
});
