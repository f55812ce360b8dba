import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import {
  createNodeRegistration,
  createNodeStartupLatencyTracker,
  createNodeStatus,
  createNodeStatusUpdater,
  initialNode,
  readyCondition,
} from './index.js';
import { FakeNodeApi } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1);

describe('node startup latency (upstream NodeStartupLatencyTracker)', () => {
  it('sets each duration once, at the first attempt, the node created and the node Ready', async () => {
    const clock = new FakeClock(T0);
    const metrics = new RecordingMetrics();
    const tracker = createNodeStartupLatencyTracker({ clock, metrics, bootTimeMs: T0 - 100 });
    const value = (name: string): number | undefined => metrics.value(`kubelet_node_startup_${name}duration_seconds`);
    tracker.recordNodeReady(); // not registered yet: nothing
    await clock.advance(800);
    tracker.recordAttemptRegisterNode();
    await clock.advance(400);
    tracker.recordAttemptRegisterNode(); // only the first attempt counts
    tracker.recordRegisteredNewNode();
    await clock.advance(1100);
    tracker.recordNodeReady();
    await clock.advance(5000);
    tracker.recordNodeReady();
    tracker.recordRegisteredNewNode();
    expect([value('pre_kubelet_'), value('pre_registration_'), value('registration_'), value('post_registration_'), value('')]).toEqual([
      0.1, 0.8, 0.4, 1.1, 2.4,
    ]);
  });

  it('without a boot time, leaves out the durations from boot', () => {
    const clock = new FakeClock(T0);
    const metrics = new RecordingMetrics();
    const tracker = createNodeStartupLatencyTracker({ clock, metrics });
    tracker.recordAttemptRegisterNode();
    tracker.recordRegisteredNewNode();
    tracker.recordNodeReady();
    expect(metrics.value('kubelet_node_startup_pre_kubelet_duration_seconds')).toBeUndefined();
    expect(metrics.value('kubelet_node_startup_duration_seconds')).toBeUndefined();
    expect(metrics.value('kubelet_node_startup_post_registration_duration_seconds')).toBe(0);
  });

  it('is told by the registration and the status updater: created at the first try, Ready once the runtime is', async () => {
    const clock = new FakeClock(T0);
    const metrics = new RecordingMetrics();
    const api = new FakeNodeApi();
    const state = { runtimeErrors: ['container runtime is down'] };
    const nodeStatus = createNodeStatus({
      nodeName: 'node-a',
      setters: [
        {
          name: 'Capacity',
          set: (n) => void ((n.status ??= {}).capacity = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '1Ti' }),
        },
        readyCondition({ clock, runtimeErrors: () => state.runtimeErrors }),
      ],
    });
    const initial = async () => {
      const node = initialNode({ nodeName: 'node-a', arch: 'amd64' });
      await nodeStatus.setNodeStatus(node);
      return node;
    };
    const startupTracker = createNodeStartupLatencyTracker({ clock, metrics, bootTimeMs: T0 - 60_000 });
    const registration = createNodeRegistration({ nodeName: 'node-a', nodeApi: api, initialNode: initial, clock, startupTracker });
    const updater = createNodeStatusUpdater({
      nodeName: 'node-a',
      nodeApi: api,
      nodeLister: api.lister(),
      nodeStatus,
      registration,
      arch: 'amd64',
      clock,
      random: () => 0,
      startupTracker,
    });
    const controller = new AbortController();
    const running = updater.run(controller.signal);
    await clock.advance(100); // registered after the first 100 ms back-off, then a NotReady status
    expect(metrics.value('kubelet_node_startup_registration_duration_seconds')).toBe(0.1);
    expect(metrics.value('kubelet_node_startup_duration_seconds')).toBeUndefined(); // not Ready yet
    await clock.advance(5_000);
    state.runtimeErrors = [];
    // fastStatusUpdateOnce reports the node Ready within 100 ms.
    await clock.advance(100);
    expect(metrics.value('kubelet_node_startup_post_registration_duration_seconds')).toBe(5.1);
    expect(metrics.value('kubelet_node_startup_duration_seconds')).toBe(65.2);
    controller.abort();
    await running;
  });
});
