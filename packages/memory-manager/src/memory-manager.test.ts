import type { Container, Pod } from '@kubelet-ts/api';
import { createMemoryCheckpointManager } from '@kubelet-ts/checkpoint-manager/testing';
import { RecordingMetrics } from '@kubelet-ts/common/testing';
import { createMemoryManager } from './index.js';
import type { MemoryManagerOptions } from './index.js';
import { FakeAffinityStore, memoryTopology } from './testing/index.js';

const GI = 1024 ** 3;
const MI = 1024 ** 2;
const STATE = '/var/lib/kubelet/memory_manager_state';

const guaranteed = (name: string, memory: string, extra: Record<string, string> = {}): Container => ({
  name,
  image: 'busybox',
  resources: { requests: { cpu: '1', memory, ...extra }, limits: { cpu: '1', memory, ...extra } },
});
const pod = (name: string, containers: Container[], initContainers: Container[] = []): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}) },
});
const onePod = (name: string, memory: string): Pod => pod(name, [guaranteed('main', memory)]);

function setup(extra: Partial<MemoryManagerOptions> = {}, files: Record<string, string> = {}) {
  const store = createMemoryCheckpointManager(files);
  let active: Pod[] = [];
  let ready = true;
  const manager = createMemoryManager({
    policy: 'Static',
    // Two NUMA nodes of 8 GiB, 1 GiB reserved on each: 7 GiB to give out per node.
    topology: memoryTopology(2, 8),
    reservedMemory: [
      { numaNode: 0, limits: { memory: '1Gi' } },
      { numaNode: 1, limits: { memory: '1Gi' } },
    ],
    nodeAllocatableReservation: { memory: '2Gi' },
    store,
    statePath: STATE,
    activePods: () => active,
    sourcesReady: () => ready,
    ...extra,
  });
  const admit = (p: Pod): void => {
    active = [...active, p];
    for (const c of [...(p.spec.initContainers ?? []), ...p.spec.containers]) manager.allocate(p, c, null);
  };
  return {
    manager,
    store,
    admit,
    setActive: (pods: Pod[]) => (active = pods),
    setReady: (value: boolean) => (ready = value),
    file: () => store.files.get('memory_manager_state')?.toString() ?? '',
  };
}

// From files the upstream kubelet 1.34 wrote (@kubelet-ts/checkpoint-manager's test/fixtures/upstream-checkpoints.json).
const UPSTREAM_NONE = '{"policyName":"None","machineState":{},"checksum":4236770233}';
const UPSTREAM_NODE0_TABLES =
  '"memoryMap":{"hugepages-2Mi":{"total":0,"systemReserved":0,"allocatable":0,"reserved":0,"free":0},' +
  '"memory":{"total":8589934592,"systemReserved":1073741824,"allocatable":7516192768,"reserved":536870912,"free":6979321856}},"cells":[0]';

describe('createMemoryManager (Static)', () => {
  it("writes the machine state as upstream's checkpoint does, and a Guaranteed container's memory on one NUMA node", async () => {
    const env = setup({
      topology: memoryTopology(1, 8, [{ pageSizeKiB: 2048, numPages: 0 }]),
      reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }],
      nodeAllocatableReservation: { memory: '1Gi' },
    });
    await env.manager.start();
    env.admit(pod('a', [guaranteed('app', '512Mi')]));
    await env.manager.flush();
    // The node's tables byte for byte as the upstream kubelet wrote them for 8 GiB, 1 GiB reserved, 512 MiB given out.
    expect(env.file()).toContain(UPSTREAM_NODE0_TABLES);
    expect(env.file()).toContain('"entries":{"uid-a":{"app":[{"numaAffinity":[0],"type":"memory","size":536870912}]}}');
    expect(env.manager.cpusetMemsFor('uid-a', 'app')).toBe('0');
    expect(env.manager.memoryBlocks('uid-a', 'app')).toEqual([{ numaAffinity: [0], type: 'memory', size: 512 * MI }]);
    expect(env.manager.allocatableMemory()).toEqual([{ numaAffinity: [0], type: 'memory', size: 7 * GI }]);
  });

  it('offers the NUMA node sets that can hold the memory, the smallest preferred, and regenerates them once allocated', async () => {
    const { manager, admit } = setup();
    await manager.start();
    const small = onePod('small', '4Gi');
    expect(manager.topologyHints(small, small.spec.containers[0]!)).toEqual({
      memory: [
        { numaNodes: [0], preferred: true },
        { numaNodes: [1], preferred: true },
        { numaNodes: [0, 1], preferred: false },
      ],
    });
    const big = onePod('big', '10Gi');
    expect(manager.podTopologyHints(big)).toEqual({ memory: [{ numaNodes: [0, 1], preferred: true }] });
    admit(small);
    expect(manager.cpusetMemsFor('uid-small', 'main')).toBe('0');
    expect(manager.topologyHints(small, small.spec.containers[0]!)).toEqual({ memory: [{ numaNodes: [0], preferred: true }] });
    // Node 0 now serves single-node allocations: it cannot be part of a group any more.
    expect(manager.topologyHints(big, big.spec.containers[0]!)).toEqual({});
    // Not Guaranteed: no preference, nothing allocated.
    const burstable: Pod = pod('burst', [{ name: 'main', image: 'busybox', resources: { requests: { memory: '1Gi' } } }]);
    expect(manager.topologyHints(burstable, burstable.spec.containers[0]!)).toEqual({});
    admit(burstable);
    expect(manager.cpusetMemsFor('uid-burst', 'main')).toBeUndefined();
  });

  it("refuses what no NUMA node set can hold with upstream's errors", async () => {
    const { manager, admit } = setup();
    await manager.start();
    expect(() => admit(onePod('huge', '15Gi'))).toThrow(
      '[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available',
    );
    admit(onePod('small', '1Gi'));
    // 10 GiB needs both nodes, and node 0 holds a single-node allocation.
    expect(() => admit(onePod('big', '10Gi'))).toThrow(
      expect.objectContaining({
        code: 'ALLOCATION_FAILED',
        message: '[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available',
      }),
    );
    expect(manager.state().entries['uid-big']).toBeUndefined();
  });

  it("counts a Guaranteed container's allocations (one already made too) and those that fail, as upstream's static Allocate", async () => {
    const metrics = new RecordingMetrics();
    const { manager, admit } = setup({ metrics });
    await manager.start();
    const small = onePod('small', '1Gi');
    admit(small);
    manager.allocate(small, small.spec.containers[0]!, null); // already has its memory
    admit(pod('burst', [{ name: 'main', image: 'busybox', resources: { requests: { memory: '1Gi' } } }])); // not pinned
    expect(() => admit(onePod('huge', '15Gi'))).toThrow(expect.objectContaining({ code: 'ALLOCATION_FAILED' }));
    expect(metrics.value('kubelet_memory_manager_pinning_requests_total')).toBe(3);
    expect(metrics.value('kubelet_memory_manager_pinning_errors_total')).toBe(1);
  });

  it("takes the topology manager's affinity, extending it when it cannot hold the request", async () => {
    const store = new FakeAffinityStore();
    const { manager, admit } = setup({ topologyAffinity: store.get });
    await manager.start();
    store.set('uid-one', 'main', { numaNodes: [1], preferred: true });
    admit(onePod('one', '2Gi'));
    expect(manager.cpusetMemsFor('uid-one', 'main')).toBe('1');
    store.set('uid-wide', 'main', { numaNodes: [0], preferred: false });
    admit(onePod('wide', '6Gi'));
    expect(manager.cpusetMemsFor('uid-wide', 'main')).toBe('0');
    expect(store.calls).toEqual([
      { podUID: 'uid-one', containerName: 'main' },
      { podUID: 'uid-wide', containerName: 'main' },
    ]);
  });

  it('lets app containers reuse the memory of init containers (upstream TestStaticPolicyAllocateWithInitContainers)', async () => {
    // 16 GiB with 8 pages of 1 GiB: 7680 MiB of regular memory once 512 MiB are reserved.
    const { manager, admit } = setup({
      topology: memoryTopology(1, 16, [{ pageSizeKiB: 1024 * 1024, numPages: 8 }]),
      reservedMemory: [{ numaNode: 0, limits: { memory: '512Mi' } }],
      nodeAllocatableReservation: { memory: '512Mi' },
    });
    await manager.start();
    const both = (size: string): Record<string, string> => ({ 'hugepages-1Gi': size });
    const p = pod(
      'pod1',
      [guaranteed('container1', '3Gi', both('3Gi')), guaranteed('container2', '4Gi', both('4Gi'))],
      [guaranteed('initContainer1', '1Gi', both('1Gi')), guaranteed('initContainer2', '2Gi', both('2Gi'))],
    );
    admit(p);
    const blocks = (size: number) => [
      { numaAffinity: [0], type: 'hugepages-1Gi', size },
      { numaAffinity: [0], type: 'memory', size },
    ];
    expect(manager.state().entries['uid-pod1']).toEqual({
      initContainer1: blocks(0),
      initContainer2: blocks(0),
      container1: blocks(3 * GI),
      container2: blocks(4 * GI),
    });
    expect(manager.state().machineState['0']).toEqual({
      numberOfAssignments: 8,
      cells: [0],
      memoryMap: {
        'hugepages-1Gi': { total: 8 * GI, systemReserved: 0, allocatable: 8 * GI, reserved: 7 * GI, free: GI },
        memory: { total: 16 * GI, systemReserved: 512 * MI, allocatable: 7680 * MI, reserved: 7 * GI, free: 512 * MI },
      },
    });
    // Upstream AddContainer: when an app container starts, the init containers before it are done and leave the state.
    manager.addContainer(p, p.spec.containers[0]!);
    expect(Object.keys(manager.state().entries['uid-pod1']!)).toEqual(['container1', 'container2']);
    expect(manager.state().machineState['0']!.numberOfAssignments).toBe(4);
  });

  it('removes the state of containers no longer active, once the pod sources are ready', async () => {
    const env = setup();
    await env.manager.start();
    env.admit(onePod('gone', '1Gi'));
    env.setActive([]);
    env.setReady(false);
    env.manager.removeStaleState();
    expect(Object.keys(env.manager.state().entries)).toEqual(['uid-gone']);
    env.setReady(true);
    // Hints (and allocation) clean up first, as upstream.
    const next = onePod('next', '1Gi');
    env.manager.topologyHints(next, next.spec.containers[0]!);
    expect(env.manager.state().entries).toEqual({});
    expect(env.manager.state().machineState['0']).toMatchObject({
      numberOfAssignments: 0,
      cells: [0],
      memoryMap: { memory: { free: 7 * GI } },
    });
    await env.manager.flush();
    expect(env.file()).not.toContain('"entries"');
  });

  it('restores its assignments after a restart, and stops where upstream does', async () => {
    const first = setup();
    await first.manager.start();
    first.admit(onePod('web', '2Gi'));
    await first.manager.flush();
    const saved = first.file();

    const second = setup({}, { memory_manager_state: saved });
    await second.manager.start();
    expect(second.manager.cpusetMemsFor('uid-web', 'main')).toBe('0');
    expect(second.file()).toBe(saved);

    const none = setup({ policy: 'None' }, { memory_manager_state: saved });
    await expect(none.manager.start()).rejects.toThrow(
      `could not restore state from checkpoint: [memorymanager] configured policy "None" differs from state checkpoint policy "Static", please drain this node and delete the memory manager checkpoint file "${STATE}" before restarting Kubelet`,
    );
    // The machine changed (more reserved memory): the state no longer fits it.
    const changed = setup(
      {
        reservedMemory: [
          { numaNode: 0, limits: { memory: '2Gi' } },
          { numaNode: 1, limits: { memory: '1Gi' } },
        ],
        nodeAllocatableReservation: { memory: '3Gi' },
      },
      { memory_manager_state: saved },
    );
    await expect(changed.manager.start()).rejects.toThrow('[memorymanager] the expected machine state is different from the real one');
    const corrupt = setup({}, { memory_manager_state: saved.replace(/"checksum":\d+/, '"checksum":1') });
    await expect(corrupt.manager.start()).rejects.toThrow(
      /could not restore state from checkpoint: checkpoint is corrupted, please drain this node/,
    );
  });

  it('needs reserved memory that adds up to node allocatable', async () => {
    await expect(setup({ reservedMemory: [], nodeAllocatableReservation: {} }).manager.start()).rejects.toThrow(
      '[memorymanager] you should specify the system reserved memory',
    );
    await expect(setup({ nodeAllocatableReservation: { memory: '1124Mi' } }).manager.start()).rejects.toThrow(
      'the total amount "2Gi" of type "memory" is not equal to the value "1124Mi" determined by Node Allocatable feature',
    );
  });
});

describe('createMemoryManager (None)', () => {
  it("writes upstream's None checkpoint and does nothing else", async () => {
    const env = setup({ policy: 'None', reservedMemory: [] });
    await env.manager.start();
    expect(env.file()).toBe(UPSTREAM_NONE);
    const p = onePod('web', '1Gi');
    expect(env.manager.topologyHints(p, p.spec.containers[0]!)).toEqual({});
    env.admit(p);
    expect(env.manager.cpusetMemsFor('uid-web', 'main')).toBeUndefined();
    expect(env.manager.allocatableMemory()).toEqual([]);
  });
});
