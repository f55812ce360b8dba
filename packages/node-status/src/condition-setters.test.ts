import type { Node } from '@kubelet-ts/api';
import { nodeReference } from '@kubelet-ts/common';
import { FakeClock, RecordingEventRecorder } from '@kubelet-ts/common/testing';
import { createNodeStatus, diskPressureCondition, memoryPressureCondition, pidPressureCondition, readyCondition } from './index.js';
import type { NodeStatusSetter } from './index.js';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const capacity = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' };

function setup() {
  const clock = new FakeClock(T0);
  const recorder = new RecordingEventRecorder();
  const state = { memory: false, disk: false, pid: false, runtime: [] as string[], network: [] as string[] };
  const setters: NodeStatusSetter[] = [
    { name: 'Capacity', set: (n) => void ((n.status ??= {}).capacity = { ...capacity }) },
    memoryPressureCondition(() => state.memory, { clock, recorder }),
    diskPressureCondition(() => state.disk, { clock, recorder }),
    pidPressureCondition(() => state.pid, { clock, recorder }),
    readyCondition({ clock, recorder, runtimeErrors: () => state.runtime, networkErrors: () => state.network }),
  ];
  const status = createNodeStatus({ nodeName: 'node-a', setters });
  return { clock, recorder, state, status };
}

describe('condition setters', () => {
  it('start in the order MemoryPressure, DiskPressure, PIDPressure, Ready with upstream reasons and events', async () => {
    const { recorder, status } = setup();
    const node = await status.getNode();
    expect(node.status?.conditions).toEqual([
      {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'KubeletHasSufficientMemory',
        message: 'kubelet has sufficient memory available',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'DiskPressure',
        status: 'False',
        reason: 'KubeletHasNoDiskPressure',
        message: 'kubelet has no disk pressure',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'PIDPressure',
        status: 'False',
        reason: 'KubeletHasSufficientPID',
        message: 'kubelet has sufficient PID available',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    // A new pressure condition is a transition from Unknown; a new Ready condition records nothing.
    expect(recorder.lines()).toEqual([
      'Normal NodeHasSufficientMemory Node node-a status is now: NodeHasSufficientMemory',
      'Normal NodeHasNoDiskPressure Node node-a status is now: NodeHasNoDiskPressure',
      'Normal NodeHasSufficientPID Node node-a status is now: NodeHasSufficientPID',
    ]);
    expect(recorder.events[0]?.object).toEqual(nodeReference('node-a'));
    expect(recorder.events[0]?.object.uid).toBe('node-a');
  });

  it('move lastHeartbeatTime every time and lastTransitionTime only when the status changes', async () => {
    const { clock, recorder, state, status } = setup();
    const node = await status.getNode();
    recorder.events.length = 0;

    await clock.advance(10_000);
    await status.setNodeStatus(node);
    const ready = () => node.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready().lastHeartbeatTime).toBe('2026-01-01T00:00:10Z');
    expect(ready().lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(recorder.events).toEqual([]);

    await clock.advance(10_000);
    state.memory = true;
    state.runtime = ['container runtime is down'];
    state.network = ['container runtime network not ready: NetworkReady=false', 'container runtime is down'];
    await status.setNodeStatus(node);
    const memory = node.status!.conditions!.find((c) => c.type === 'MemoryPressure')!;
    expect(memory).toMatchObject({ status: 'True', reason: 'KubeletHasInsufficientMemory', lastTransitionTime: '2026-01-01T00:00:20Z' });
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      // upstream's aggregate: deduplicated, in brackets when more than one
      message: '[container runtime is down, container runtime network not ready: NetworkReady=false]',
      lastTransitionTime: '2026-01-01T00:00:20Z',
    });
    expect(recorder.events.map((e) => e.reason)).toEqual(['NodeHasInsufficientMemory', 'NodeNotReady']);

    await clock.advance(10_000);
    state.runtime = [];
    state.network = [];
    await status.setNodeStatus(node);
    expect(ready()).toMatchObject({ status: 'True', lastTransitionTime: '2026-01-01T00:00:30Z' });
    expect(recorder.events.map((e) => e.reason)).toEqual(['NodeHasInsufficientMemory', 'NodeNotReady', 'NodeReady']);
    expect(node.status!.conditions!.map((c) => c.type)).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
  });

  it('is not Ready without cpu, memory, pods and ephemeral-storage capacity', async () => {
    const clock = new FakeClock(T0);
    const node: Node = { metadata: { name: 'n' }, status: { capacity: { cpu: '1', pods: '110' } } };
    await readyCondition({ clock }).set(node);
    expect(node.status?.conditions?.[0]).toMatchObject({
      status: 'False',
      message: 'missing node capacity for resources: memory, ephemeral-storage',
    });
    await readyCondition({ clock, localStorageCapacityIsolation: false, softRequirements: () => 'cgroup v1' }).set(node);
    expect(node.status?.conditions?.[0]).toMatchObject({
      status: 'False',
      message: 'missing node capacity for resources: memory. WARNING: cgroup v1',
    });
  });

  it('keep conditions set by others where they are', async () => {
    const { status } = setup();
    const node: Node = {
      metadata: { name: 'node-a' },
      status: { conditions: [{ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated' }] },
    };
    await status.setNodeStatus(node);
    expect(node.status?.conditions?.map((c) => c.type)).toEqual([
      'NetworkUnavailable',
      'MemoryPressure',
      'DiskPressure',
      'PIDPressure',
      'Ready',
    ]);
  });
});
