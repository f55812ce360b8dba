import type { Pod } from '@kubelet-ts/api';
import { createMemoryCheckpointManager } from '@kubelet-ts/checkpoint-manager/testing';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createCpuManager, formatCpuSet, parseCpuSet, takeByTopology } from './index.js';
import type { CpuManagerOptions } from './index.js';
import { FakeCpuManagerRuntime, cpuTopology } from './testing/index.js';

const pod = (name: string, cpu: string, extra: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: {
    containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } } }],
    ...extra,
  },
});

function setup(extra: Partial<CpuManagerOptions> = {}, files: Record<string, string> = {}) {
  const store = createMemoryCheckpointManager(files);
  const runtime = new FakeCpuManagerRuntime();
  let active: Pod[] = [];
  const manager = createCpuManager({
    policy: 'static',
    topology: cpuTopology(1, 4),
    reservedCpus: '0',
    store,
    statePath: '/var/lib/kubelet/cpu_manager_state',
    runtime,
    activePods: () => active,
    clock: new FakeClock(),
    ...extra,
  });
  return { manager, store, runtime, setActive: (pods: Pod[]) => (active = pods) };
}

describe('cpusets', () => {
  it('parses and formats the Linux list syntax', () => {
    expect(parseCpuSet('0-2,7,5,1')).toEqual([0, 1, 2, 5, 7]);
    expect(formatCpuSet([7, 0, 1, 2, 5])).toBe('0-2,5,7');
    expect(parseCpuSet('')).toEqual([]);
    expect(() => parseCpuSet('3-1')).toThrow(/reversed/);
    expect(() => parseCpuSet('a')).toThrow(expect.objectContaining({ code: 'INVALID_CPUSET' }));
  });

  it('takes whole cores before single threads, packing onto busy cores', () => {
    // 1 socket, 2 cores, 2 threads: cpus 0,1 are threads 0 of cores 0,1; cpus 2,3 their siblings.
    const topology = cpuTopology(1, 2, 2);
    expect(takeByTopology(topology, [0, 1, 2, 3], 2)).toEqual([0, 2]);
    // Core 0 is half taken: the single thread goes next to it, core 1 stays whole.
    expect(takeByTopology(topology, [1, 2, 3], 1)).toEqual([2]);
    expect(takeByTopology(topology, [1, 2, 3], 4)).toBeUndefined();
  });
});

describe('createCpuManager (static)', () => {
  it('gives a Guaranteed integer-CPU container exclusive CPUs, everyone else the shared pool, and checkpoints it', async () => {
    const { manager, store } = setup();
    await manager.start();
    expect(manager.state()).toEqual({ policyName: 'static', defaultCpuSet: '0-3', entries: {} });
    expect(manager.admit(pod('web', '2'))).toEqual({ admit: true });
    expect(manager.cpusetFor('uid-web', 'main')).toBe('1-2');
    // Fractional CPUs and Burstable pods stay shared.
    expect(manager.admit(pod('half', '500m'))).toEqual({ admit: true });
    expect(manager.cpusetFor('uid-half', 'main')).toBe('0,3');
    await manager.flush();
    const file = store.files.get('cpu_manager_state')?.toString();
    expect(JSON.parse(file ?? '{}')).toMatchObject({ policyName: 'static', defaultCpuSet: '0,3', entries: { 'uid-web': { main: '1-2' } } });
  });

  it("counts allocations that need pinning (one already made too) and those that fail, as upstream's static Allocate", async () => {
    const metrics = new RecordingMetrics();
    const { manager } = setup({ metrics });
    await manager.start();
    const web = pod('web', '2');
    manager.allocate(web, web.spec.containers[0]!, null);
    manager.allocate(web, web.spec.containers[0]!, null); // already has its CPUs
    const half = pod('half', '500m'); // shared pool: no pinning
    manager.allocate(half, half.spec.containers[0]!, null);
    const big = pod('big', '2'); // one CPU left
    expect(() => manager.allocate(big, big.spec.containers[0]!, null)).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_CPUS' }));
    expect(metrics.value('kubelet_cpu_manager_pinning_requests_total')).toBe(3);
    expect(metrics.value('kubelet_cpu_manager_pinning_errors_total')).toBe(1);
  });

  it('refuses what does not fit with the upstream reason and message, keeping nothing of the pod', async () => {
    const { manager } = setup();
    await manager.start();
    expect(manager.admit(pod('big', '4'))).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message: 'Allocate failed due to not enough cpus available to satisfy request: requested=4, available=3, which is unexpected',
    });
    expect(manager.state().defaultCpuSet).toBe('0-3');
  });

  it('restores its assignments after a restart, moves running containers to their cpuset and releases pods that are gone', async () => {
    const first = setup();
    await first.manager.start();
    first.manager.admit(pod('web', '1'));
    await first.manager.flush();
    const saved = first.store.files.get('cpu_manager_state')!.toString();

    const second = setup({}, { cpu_manager_state: saved });
    await second.manager.start();
    expect(second.manager.cpusetFor('uid-web', 'main')).toBe('1');
    second.setActive([pod('web', '1'), pod('shared', '100m')]);
    second.runtime.containers = [
      { id: 'c-web', podUID: 'uid-web', name: 'main' },
      { id: 'c-shared', podUID: 'uid-shared', name: 'main' },
    ];
    await second.manager.reconcile();
    expect(second.runtime.updates).toEqual([
      { containerId: 'c-web', cpuset: '1' },
      { containerId: 'c-shared', cpuset: '0,2-3' },
    ]);
    // Unchanged: no update again.
    await second.manager.reconcile();
    expect(second.runtime.updates).toHaveLength(2);
    second.setActive([pod('shared', '100m')]);
    await second.manager.reconcile();
    expect(second.manager.state()).toEqual({ policyName: 'static', defaultCpuSet: '0-3', entries: {} });
    expect(second.runtime.updates.at(-1)).toEqual({ containerId: 'c-shared', cpuset: '0-3' });
  });

  it('stops the kubelet, as upstream, on a checkpoint of another policy or one that does not fit the machine', async () => {
    const none = setup({}, { cpu_manager_state: '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}' });
    await expect(none.manager.start()).rejects.toThrow(
      'could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet',
    );
    const other = setup({}, { cpu_manager_state: '{"policyName":"static","defaultCpuSet":"0-7","checksum":0}' });
    await expect(other.manager.start()).rejects.toThrow('current set of available CPUs "0-3" doesn\'t match with CPUs in state "0-7"');
  });

  it('needs reserved CPUs', async () => {
    await expect(setup({ reservedCpus: undefined, reservedMilliCpus: 0 }).manager.start()).rejects.toThrow(
      '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero',
    );
    const rounded = setup({ reservedCpus: undefined, reservedMilliCpus: 1500 });
    await rounded.manager.start();
    // 2 CPUs reserved (1.5 rounded up): only 2 left for exclusive use.
    expect(rounded.manager.admit(pod('three', '3')).admit).toBe(false);
    expect(rounded.manager.admit(pod('two', '2')).admit).toBe(true);
  });
});

describe('createCpuManager (none)', () => {
  it("writes upstream's none checkpoint and sets no cpusets", async () => {
    const { manager, store, runtime } = setup({ policy: 'none' });
    await manager.start();
    expect(store.files.get('cpu_manager_state')?.toString()).toBe('{"policyName":"none","defaultCpuSet":"","checksum":1353318690}');
    expect(manager.admit(pod('web', '2'))).toEqual({ admit: true });
    expect(manager.cpusetFor('uid-web', 'main')).toBeUndefined();
    await manager.reconcile();
    expect(runtime.updates).toEqual([]);
  });
});

describe('createCpuManager as a topology hint provider', () => {
  it('offers the NUMA node sets that can hold the CPUs, the smallest preferred, and allocates within the chosen one', async () => {
    // Two NUMA nodes: CPUs 0-1 on node 0, 2-3 on node 1; CPU 0 reserved.
    const { manager } = setup({ topology: cpuTopology(2, 2) });
    await manager.start();
    const two = pod('two', '2');
    const container = two.spec.containers[0]!;
    expect(manager.topologyHints(two, container)).toEqual({
      cpu: [
        { numaNodes: [1], preferred: true },
        { numaNodes: [0, 1], preferred: false },
      ],
    });
    expect(manager.podTopologyHints(two)).toEqual(manager.topologyHints(two, container));
    manager.allocate(two, container, [1]);
    expect(manager.cpusetFor('uid-two', 'main')).toBe('2-3');
    // Allocated: the hints are those of its CPUs; a shared container has no preference.
    expect(manager.topologyHints(two, container)).toEqual({
      cpu: [
        { numaNodes: [1], preferred: true },
        { numaNodes: [0, 1], preferred: false },
      ],
    });
    const shared = pod('shared', '100m');
    expect(manager.topologyHints(shared, shared.spec.containers[0]!)).toEqual({});
    manager.release(two);
    expect(manager.state().entries).toEqual({});
  });
});
