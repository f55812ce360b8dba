import type { Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import { createPodLifecycleForTest } from './testing/index.js';
import { makePod } from './testing/make-pod.js';
import type { PodCgroupsHook } from './types.js';

/** A recording pod-cgroups hook that also notes whether the runtime already synced the pod. */
function recordingCgroups(runtime: FakeContainerRuntime, log: string[], fail?: (pod: Pod) => Error | undefined) {
  const existing = new Set<string>();
  const updates: string[][] = [];
  const hook: PodCgroupsHook = {
    async ensureExists(pod) {
      const synced = runtime.callsOf('syncPod').some((c) => c.pod.metadata.uid === pod.metadata.uid);
      log.push(`ensure ${pod.metadata.name}${synced ? ' (after a runtime sync)' : ''}`);
      const err = fail?.(pod);
      if (err !== undefined) throw err;
      existing.add(pod.metadata.uid);
    },
    async destroy(uid) {
      const killed = runtime.callsOf('killPod').some((c) => (c.pod?.metadata.uid ?? c.running?.uid) === uid);
      log.push(`destroy ${uid}${killed ? ' (after kill)' : ''}`);
      existing.delete(uid);
    },
    async update(pods) {
      updates.push(pods.map((p) => p.metadata.name));
    },
    async listPodUIDs() {
      return [...existing];
    },
  };
  return { hook, existing, updates };
}

function setup(makeHook: (runtime: FakeContainerRuntime) => PodCgroupsHook) {
  const clock = new FakeClock();
  const runtime = new FakeContainerRuntime({ clock });
  const logger = new RecordingLogger();
  const { lifecycle, housekeeping } = createPodLifecycleForTest({
    runtime,
    clock,
    logger,
    nodeName: 'node-1',
    getNodeIPs: () => ['192.168.1.10'],
    random: () => 0.5,
    podCgroups: makeHook(runtime),
  });
  const controller = new AbortController();
  const running = lifecycle.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await running;
  };
  return { clock, runtime, logger, lifecycle, housekeeping, stop };
}

let stopCurrent: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopCurrent?.();
  stopCurrent = undefined;
});

describe('pod lifecycle: the pod cgroups hook', () => {
  it('creates the pod cgroup before the runtime syncs the pod, and removes it after the pod was killed', async () => {
    const log: string[] = [];
    let cg: ReturnType<typeof recordingCgroups> | undefined;
    const h = setup((runtime) => (cg = recordingCgroups(runtime, log)).hook);
    stopCurrent = h.stop;
    const pod = makePod({ name: 'web', terminationGracePeriodSeconds: 1 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    expect(log[0]).toBe('ensure web');
    expect(h.runtime.callsOf('syncPod').length).toBeGreaterThanOrEqual(1);
    expect(cg?.existing.has(pod.metadata.uid)).toBe(true);

    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    expect(log).toContain(`destroy ${pod.metadata.uid} (after kill)`);
    expect(cg?.existing.has(pod.metadata.uid)).toBe(false);
  });

  it('does not run a pod whose cgroup cannot be made, says why, and keeps running the other pods', async () => {
    const log: string[] = [];
    const h = setup(
      (runtime) =>
        recordingCgroups(runtime, log, (pod) => (pod.metadata.name === 'bad' ? new Error('cgroupRoot "/x" cannot be created') : undefined))
          .hook,
    );
    stopCurrent = h.stop;
    const bad = makePod({ name: 'bad' });
    const good = makePod({ name: 'good' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [bad, good] });
    await h.clock.advance(2_000);
    expect(h.runtime.callsOf('syncPod').map((c) => c.pod.metadata.name)).not.toContain('bad');
    expect(h.runtime.latestContainer(good.metadata.uid, 'app')?.state).toBe('running');
    const err = h.logger.find('Error syncing pod').find((r) => String(r.fields.err).includes('bad'))?.fields.err;
    expect(err).toContain(
      'failed to ensure that the pod "default/bad" cgroups exist and are correctly applied: cgroupRoot "/x" cannot be created',
    );
    expect(h.lifecycle.getPodStatus(bad.metadata.uid)?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
  });

  it('housekeeping passes the active pods on and removes cgroups of pods that are gone', async () => {
    const log: string[] = [];
    let cg: ReturnType<typeof recordingCgroups> | undefined;
    const h = setup((runtime) => (cg = recordingCgroups(runtime, log)).hook);
    stopCurrent = h.stop;
    const pod = makePod({ name: 'web' });
    cg?.existing.add('left-by-a-previous-run');
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    // Before the sources are ready nothing is cleaned up.
    await h.housekeeping();
    expect(log).not.toContain('destroy left-by-a-previous-run');
    h.lifecycle.setSourcesReady();
    await h.clock.advance(1_000);
    await h.housekeeping();
    expect(log).toContain('destroy left-by-a-previous-run');
    expect(log.filter((l) => l.startsWith(`destroy ${pod.metadata.uid}`))).toEqual([]);
    expect(cg?.updates.at(-1)).toEqual(['web']);
  });

  it('housekeeping counts a pod added while it listed the runtime (the QoS tiers must not drop it)', async () => {
    const log: string[] = [];
    let cg: ReturnType<typeof recordingCgroups> | undefined;
    const h = setup((runtime) => (cg = recordingCgroups(runtime, log)).hook);
    stopCurrent = h.stop;
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [makePod({ name: 'web' })] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(1_000);
    const late = makePod({ name: 'late' });
    const getPods = h.runtime.getPods.bind(h.runtime);
    let addDuringList = true;
    h.runtime.getPods = async (all) => {
      if (addDuringList) {
        addDuringList = false;
        h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [late] });
      }
      return getPods(all);
    };
    await h.housekeeping();
    expect(addDuringList).toBe(false);
    expect(cg?.updates.at(-1)?.sort()).toEqual(['late', 'web']);
  });
});
