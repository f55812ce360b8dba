import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import type { EvictPodRequest, PodAdmitHandler } from '@kubelet-ts/pod-lifecycle';
import { FakeSummaryProvider, newPodStats, newSummary } from '@kubelet-ts/stats/testing';
import { createKubeletEvictionManager, evictionAdmitHandler, evictionConfigFrom, evictionMonitoringIntervalMs } from './eviction.js';

const Gi = 1024 ** 3;
const base = {
  evictionHard: { 'memory.available': '1Gi' },
  evictionSoft: {},
  evictionSoftGracePeriod: {},
  evictionMinimumReclaim: {},
  evictionPressureTransitionPeriod: '5m0s',
  evictionMaxPodGracePeriod: 0,
  mergeDefaultEvictionSettings: false,
};

function fakeLifecycle(pods: Pod[]) {
  const handlers: PodAdmitHandler[] = [];
  const evicted: Array<{ uid: string; request: EvictPodRequest }> = [];
  return {
    handlers,
    evicted,
    sourcesReady: true,
    getPods: () => pods,
    getActivePods: () => pods.filter((p) => !evicted.some((e) => e.uid === p.metadata.uid)),
    evictPod: async (uid: string, request: EvictPodRequest) => {
      evicted.push({ uid, request });
    },
    podResourcesAreReclaimed: () => true,
    addPodAdmitHandler: (h: PodAdmitHandler) => {
      handlers.push(h);
      return () => undefined;
    },
  };
}

describe('kubelet eviction wiring', () => {
  it('turns the KubeletConfiguration into the library config, merging defaults only when asked', () => {
    expect(
      evictionConfigFrom({
        ...base,
        evictionSoft: { 'memory.available': '2Gi' },
        evictionSoftGracePeriod: { 'memory.available': '1m30s' },
        evictionMaxPodGracePeriod: 20,
      }),
    ).toEqual({
      evictionHard: { 'memory.available': '1Gi' },
      evictionSoft: { 'memory.available': '2Gi' },
      evictionSoftGracePeriodMs: { 'memory.available': 90_000 },
      evictionMinimumReclaim: {},
      evictionPressureTransitionPeriodMs: 300_000,
      evictionMaxPodGracePeriodSeconds: 20,
    });
    expect(evictionConfigFrom({ ...base, mergeDefaultEvictionSettings: true }).evictionHard).toEqual({
      'memory.available': '1Gi',
      'nodefs.available': '10%',
      'nodefs.inodesFree': '5%',
      'imagefs.available': '15%',
    });
  });

  it('checks every 10 s unless evictionMonitoringPeriod (kubelet-ts) says otherwise', () => {
    expect(evictionMonitoringIntervalMs({})).toBe(10_000);
    expect(evictionMonitoringIntervalMs({ evictionMonitoringPeriod: '1s' })).toBe(1000);
  });

  it('joins the lifecycle admission, evicts through lifecycle.evictPod and keeps the pressure conditions for the node status', async () => {
    const be = newPod({ name: 'be', uid: 'uid-be' });
    const lifecycle = fakeLifecycle([be]);
    const provider = new FakeSummaryProvider(
      newSummary({ memory: { capacityBytes: 8 * Gi, workingSetBytes: 7.5 * Gi }, pods: [newPodStats({ name: 'be', uid: 'uid-be' })] }),
    );
    const clock = new FakeClock();
    const manager = createKubeletEvictionManager({
      config: base,
      evictStaticPods: false,
      summaryProvider: provider,
      lifecycle,
      runtime: { garbageCollect: async () => undefined },
      clock,
      logger: new RecordingLogger(),
    });
    lifecycle.addPodAdmitHandler(evictionAdmitHandler(manager));
    await manager.synchronize();
    expect(lifecycle.evicted.map((e) => [e.uid, e.request.reason, e.request.gracePeriodSeconds])).toEqual([['uid-be', 'Evicted', 1]]);
    expect(lifecycle.handlers[0]?.admit({ pod: newPod({ name: 'be2' }), otherPods: [] })).toEqual({
      admit: false,
      reason: 'Evicted',
      message: 'The node had condition: [MemoryPressure]. ',
    });
    expect(manager.nodeConditions().map((c) => [c.type, c.status, c.reason])).toEqual([
      ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
    ]);
  });
});
