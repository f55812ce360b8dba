import type { Container, Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_AFFINITY_MESSAGE, createTopologyManager, everyMask, mergeHints, nodesOf } from './index.js';
import type { TopologyHint } from './index.js';
import { FakeHintProvider } from './testing/index.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
};
const hint = (numaNodes: number[] | null, preferred: boolean): TopologyHint => ({ numaNodes, preferred });

describe('NUMA masks', () => {
  it('visits every subset, smallest first', () => {
    const seen: number[][] = [];
    everyMask([0, 1, 2], (m) => seen.push(nodesOf(m)));
    expect(seen).toEqual([[0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]]);
  });
});

describe('mergeHints (upstream policy Merge)', () => {
  const nodes = [0, 1];
  it('takes the narrowest preferred affinity all providers agree on', () => {
    const cpu = { cpu: [hint([0], true), hint([1], true), hint([0, 1], false)] };
    const devices = { gpu: [hint([1], true), hint([0, 1], false)] };
    expect(mergeHints('restricted', nodes, [cpu, devices])).toEqual({ hint: hint([1], true), admit: true });
  });

  it('restricted and single-numa-node refuse when no preferred alignment exists; best-effort admits', () => {
    const cpu = { cpu: [hint([0, 1], true)] };
    const devices = { gpu: [hint([0], true)] };
    // Only the combination [0,1] ∧ [0] = [0], which is not preferred (the masks differ).
    expect(mergeHints('restricted', nodes, [cpu, devices])).toEqual({ hint: hint([0], false), admit: false });
    expect(mergeHints('best-effort', nodes, [cpu, devices])).toEqual({ hint: hint([0], false), admit: true });
    expect(mergeHints('single-numa-node', nodes, [{ cpu: [hint([0, 1], true)] }])).toEqual({ hint: hint(null, false), admit: false });
  });

  it('no preference anywhere is every node, preferred; a resource that cannot be placed is not', () => {
    expect(mergeHints('restricted', nodes, [{}, { cpu: null }])).toEqual({ hint: hint([0, 1], true), admit: true });
    expect(mergeHints('restricted', nodes, [{ cpu: [] }])).toEqual({ hint: hint([0, 1], false), admit: false });
    // single-numa-node reports "every node" as no affinity.
    expect(mergeHints('single-numa-node', nodes, [{}])).toEqual({ hint: hint(null, true), admit: true });
  });
});

describe('createTopologyManager', () => {
  it('counts and times every admission (upstream manager.Admit); a refused pod is an error, except under none', () => {
    const clock = new FakeClock();
    const metrics = new RecordingMetrics();
    // Each allocation takes 1.8 ms of the fake clock.
    class SlowProvider extends FakeHintProvider {
      override allocate(p: Pod, container: Container, affinity: readonly number[] | null): void {
        clock.setNow(clock.now() + 1.8);
        super.allocate(p, container, affinity);
      }
    }
    const provider = new SlowProvider({ cpu: [hint([0], true)] });
    const manager = createTopologyManager({ policy: 'restricted', numaNodes: [0, 1], providers: [provider], clock, metrics });
    const twoContainers: Pod = { ...pod, spec: { containers: [pod.spec.containers[0]!, { name: 'side', image: 'busybox' }] } };
    expect(manager.admit(twoContainers).admit).toBe(true);
    provider.hints = { cpu: [] };
    expect(manager.admit(pod).admit).toBe(false);
    provider.hints = { cpu: [hint([0], true)] };
    provider.failAllocate = 'no cpus';
    expect(manager.admit(pod).reason).toBe('UnexpectedAdmissionError');
    expect(metrics.value('kubelet_topology_manager_admission_requests_total')).toBe(3);
    expect(metrics.value('kubelet_topology_manager_admission_errors_total')).toBe(2);
    // Whole milliseconds, as upstream's Duration.Milliseconds: 3.6 ms is 3, the failed allocation's 1.8 ms is 1.
    expect(metrics.observations('kubelet_topology_manager_admission_duration_ms')).toEqual([3, 0, 1]);
    const buckets = metrics.buckets('kubelet_topology_manager_admission_duration_ms') ?? [];
    expect([buckets.length, buckets[0], buckets[1], buckets[14]]).toEqual([15, 0.05, 0.1, 819.2]);

    const none = createTopologyManager({ policy: 'none', numaNodes: [0, 1], providers: [provider], clock, metrics });
    expect(none.admit(pod).admit).toBe(false);
    expect(metrics.value('kubelet_topology_manager_admission_requests_total')).toBe(4);
    expect(metrics.value('kubelet_topology_manager_admission_errors_total')).toBe(2);
  });

  it('refuses a pod that cannot be aligned with upstream reason and message, and releases what it allocated', () => {
    const provider = new FakeHintProvider({ cpu: [] });
    const manager = createTopologyManager({ policy: 'single-numa-node', numaNodes: [0], providers: [provider] });
    expect(manager.admit(pod)).toEqual({ admit: false, reason: TOPOLOGY_AFFINITY_ERROR, message: TOPOLOGY_AFFINITY_MESSAGE });
    expect(provider.allocations).toEqual([]);
    expect(provider.released).toEqual(['web']);
  });

  it('allocates each container within its best affinity (container scope) or the pod one (pod scope)', () => {
    const provider = new FakeHintProvider({ cpu: [hint([1], true), hint([0, 1], false)] }, { cpu: [hint([0], true)] });
    const two: Pod = {
      ...pod,
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'x' },
        ],
      },
    };
    const container = createTopologyManager({ policy: 'restricted', numaNodes: [0, 1], providers: [provider] });
    expect(container.admit(two)).toEqual({ admit: true });
    expect(provider.allocations.map((a) => [a.container, a.affinity])).toEqual([
      ['a', [1]],
      ['b', [1]],
    ]);
    expect(container.affinity('uid-web', 'a')).toEqual(hint([1], true));
    const podScope = createTopologyManager({ policy: 'restricted', scope: 'pod', numaNodes: [0, 1], providers: [provider] });
    expect(podScope.admit(two)).toEqual({ admit: true });
    expect(provider.allocations.slice(2).map((a) => a.affinity)).toEqual([[0], [0]]);
  });

  it('under none allocates without hints, and a failed allocation is UnexpectedAdmissionError', () => {
    const provider = new FakeHintProvider();
    provider.failAllocate = 'not enough cpus available to satisfy request: requested=2, available=1';
    const manager = createTopologyManager({ policy: 'none', numaNodes: [0], providers: [provider] });
    expect(manager.admit(pod)).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: 'Allocate failed due to not enough cpus available to satisfy request: requested=2, available=1, which is unexpected',
    });
  });

  it('refuses more than 8 NUMA nodes, as upstream', () => {
    expect(() => createTopologyManager({ policy: 'restricted', numaNodes: [0, 1, 2, 3, 4, 5, 6, 7, 8], providers: [] })).toThrow(
      'unsupported on machines with more than 8 NUMA Nodes',
    );
  });
});
