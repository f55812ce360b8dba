import { access, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { GC_REMOVAL_CONCURRENCY } from './gc.js';
import { side, makePod, sync, setup } from './test-env.js';
import type { Env } from './test-env.js';

describe('garbageCollect', () => {
  const policy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

  async function crashLoop(env: Env, pod: Pod, times: number): Promise<void> {
    await sync(env, pod);
    for (let i = 0; i < times; i++) {
      const st = await env.manager.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace);
      const c = st.containers.find((x) => x.state === 'running');
      env.runtime.exitContainer(c?.id ?? '', 1);
      await env.clock.advance(400_000); // past any back-off
      await sync(env, pod);
    }
  }

  it('keeps the newest dead container per (pod, container) and removes older ones with their logs', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await crashLoop(env, pod, 3); // restart counts 0,1,2 dead; 3 running
    for (let i = 0; i <= 3; i++) {
      const dir = path.join(env.logsDir, 'prod_web_uid-1', 'side');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, `${i}.log`), 'x');
      // what the container log manager leaves after rotations
      await writeFile(path.join(dir, `${i}.log.20261129-101500.gz`), 'x');
      await writeFile(path.join(dir, `${i}.log.20261129-101510`), 'x');
    }
    await env.manager.garbageCollect(policy, true, () => false);
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.containers.map((c) => [c.restartCount, c.state])).toEqual([
      [3, 'running'],
      [2, 'exited'],
    ]);
    const exists = async (n: number) =>
      access(path.join(env.logsDir, 'prod_web_uid-1', 'side', `${n}.log`)).then(
        () => true,
        () => false,
      );
    expect([await exists(0), await exists(1), await exists(2), await exists(3)]).toEqual([false, false, true, true]);
    // rotated files go with their container's log
    expect((await readdir(path.join(env.logsDir, 'prod_web_uid-1', 'side'))).sort()).toEqual([
      '2.log',
      '2.log.20261129-101500.gz',
      '2.log.20261129-101510',
      '3.log',
      '3.log.20261129-101500.gz',
      '3.log.20261129-101510',
    ]);
  });

  it('respects minAge and the global maxContainers limit', async () => {
    const env = setup();
    await crashLoop(env, makePod({ containers: [side] }, 'uid-a'), 2);
    await crashLoop(env, makePod({ containers: [side] }, 'uid-b'), 2);
    await env.manager.garbageCollect({ minAgeMs: 10 * 3600_000, maxPerPodContainer: 0, maxContainers: -1 }, true, () => false);
    expect(env.runtime.callsOf('removeContainer')).toHaveLength(0);
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 1 }, true, () => false);
    const dead = (await env.manager.getPods(true)).flatMap((p) => p.containers).filter((c) => c.state === 'exited');
    expect(dead).toHaveLength(1);
  });

  it('removes everything of a deleted pod: dead containers, stopped sandboxes, the log directory', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await crashLoop(env, pod, 1);
    await env.manager.killPod(
      pod,
      (await env.manager.getPods(false))[0] ?? { uid: 'uid-1', name: 'web', namespace: 'prod', sandboxes: [], containers: [] },
    );
    await access(path.join(env.logsDir, 'prod_web_uid-1'));
    // not all sources ready: containers of deleted pods stay
    await env.manager.garbageCollect(policy, false, () => true);
    expect((await env.manager.getPodStatus('uid-1', 'web', 'prod')).containers.length).toBeGreaterThan(0);
    await env.manager.garbageCollect(policy, true, (uid) => uid === 'uid-1');
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.containers).toEqual([]);
    expect(st.sandboxes).toEqual([]);
    await expect(access(path.join(env.logsDir, 'prod_web_uid-1'))).rejects.toThrow();
  });

  /** Makes `method` of the fake wait until released, counting the calls in flight. */
  function gate(runtime: FakeRuntimeService, method: 'removeContainer' | 'removePodSandbox') {
    const original = runtime[method].bind(runtime) as (request: unknown, options?: unknown) => Promise<unknown>;
    const waiting: Array<() => void> = [];
    const state = { inFlight: 0, max: 0, waiting };
    const gated = async (request: unknown, options?: unknown): Promise<unknown> => {
      state.inFlight++;
      state.max = Math.max(state.max, state.inFlight);
      try {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return await original(request, options);
      } finally {
        state.inFlight--;
      }
    };
    (runtime as unknown as Record<string, unknown>)[method] = gated;
    return state;
  }

  /** Lets the GC's file and fake-runtime work run until `count` calls wait on the gate (bounded; no time passes). */
  async function untilWaiting(g: { waiting: unknown[] }, count: number): Promise<void> {
    for (let i = 0; i < 5_000 && g.waiting.length < count; i++) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)); // nothing more may start
    expect(g.waiting.length).toBe(count);
  }

  it('removes deleted pods concurrently, at most 8 at a time, containers before sandboxes, one failure not stopping the rest', async () => {
    const logger = new RecordingLogger();
    const env = setup({ logger });
    const pods = 12;
    for (let i = 0; i < pods; i++) {
      const pod = makePod({ containers: [side] }, `uid-${i}`);
      await sync(env, pod);
      const r = (await env.manager.getPods(false)).find((p) => p.uid === `uid-${i}`);
      if (r === undefined) throw new Error(`pod uid-${i} not running`);
      await env.manager.killPod(pod, r);
    }
    const containers = gate(env.runtime, 'removeContainer');
    const sandboxes = gate(env.runtime, 'removePodSandbox');
    env.runtime.injectError('removePodSandbox', 'UNAVAILABLE'); // the first sandbox removal fails
    const gc = env.manager.garbageCollect(policy, true, () => true);

    // Containers: 8 removals start at once, the others wait for a slot; no sandbox is touched meanwhile.
    await untilWaiting(containers, GC_REMOVAL_CONCURRENCY);
    expect(containers.inFlight).toBe(GC_REMOVAL_CONCURRENCY);
    expect(env.runtime.callsOf('stopPodSandbox').length).toBe(pods); // only killPod's
    for (const release of containers.waiting.splice(0, 3)) release();
    await untilWaiting(containers, GC_REMOVAL_CONCURRENCY); // the three freed slots are taken by the next three
    for (const release of containers.waiting.splice(0)) release();
    await untilWaiting(containers, pods - GC_REMOVAL_CONCURRENCY - 3); // the last one
    for (const release of containers.waiting.splice(0)) release();

    // Sandboxes: every container is gone first, then 8 at a time again.
    await untilWaiting(sandboxes, GC_REMOVAL_CONCURRENCY);
    expect(containers.inFlight).toBe(0);
    expect(env.runtime.containerIds).toEqual([]);
    expect(sandboxes.inFlight).toBe(GC_REMOVAL_CONCURRENCY);
    for (const release of sandboxes.waiting.splice(0)) release();
    await untilWaiting(sandboxes, pods - GC_REMOVAL_CONCURRENCY);
    for (const release of sandboxes.waiting.splice(0)) release();
    await gc;

    expect(containers.max).toBe(GC_REMOVAL_CONCURRENCY);
    expect(sandboxes.max).toBe(GC_REMOVAL_CONCURRENCY);
    expect(env.runtime.sandboxIds).toHaveLength(1); // the failed one, retried by the next GC
    expect(JSON.stringify(logger.records)).toContain('Failed to remove sandbox');
  });

  it('removes old not-ready sandboxes without containers, keeping the newest for a live pod', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] });
    await sync(env, pod);
    for (let i = 0; i < 2; i++) {
      const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
      await env.runtime.stopPodSandbox({ podSandboxId: st.sandboxes[0]?.id ?? '' });
      await env.clock.advance(400_000); // past the CrashLoopBackOff of the killed container
      await sync(env, pod);
    }
    expect((await env.manager.getPodStatus('uid-1', 'web', 'prod')).sandboxes).toHaveLength(3);
    await env.manager.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 0, maxContainers: -1 }, true, () => false);
    const st = await env.manager.getPodStatus('uid-1', 'web', 'prod');
    expect(st.sandboxes.map((s) => s.state)).toEqual(['ready']);
    expect(st.containers.map((c) => c.state)).toEqual(['running']);
    // the pod's log directory stays while the pod exists
    await expect(
      readFile(path.join(env.logsDir, 'prod_web_uid-1', 'nothing'), 'utf8').catch((e: NodeJS.ErrnoException) => e.code),
    ).resolves.toBe('ENOENT');
    await access(path.join(env.logsDir, 'prod_web_uid-1'));
  });
});

describe('removeDeletedPod', () => {
  it('removes the exited containers and stopped sandbox its last status lists, without listing the runtime, and nothing of other pods', async () => {
    const env = setup();
    const gone = makePod({ containers: [side] }, 'uid-gone');
    const other = makePod({ containers: [side] }, 'uid-other');
    await sync(env, gone);
    await sync(env, other);
    const running = (await env.manager.getPods(false)).find((p) => p.uid === 'uid-gone');
    await env.manager.killPod(gone, running ?? { uid: 'uid-gone', name: 'web', namespace: 'prod', sandboxes: [], containers: [] });
    const stopped = await env.manager.getPodStatus('uid-gone', 'web', 'prod');
    const listsBefore = env.runtime.callsOf('listContainers').length + env.runtime.callsOf('listPodSandbox').length;
    await env.manager.removeDeletedPod(stopped);
    expect(env.runtime.callsOf('listContainers').length + env.runtime.callsOf('listPodSandbox').length).toBe(listsBefore);
    const left = await env.manager.getPods(true);
    expect(left.map((p) => p.uid)).toEqual(['uid-other']);
    expect(left[0]?.containers.map((c) => c.state)).toEqual(['running']);
    expect(env.runtime.callsOf('removePodSandbox')).toHaveLength(1);
  });

  it('leaves a pod whose container still runs untouched, sandbox included', async () => {
    const env = setup();
    const pod = makePod({ containers: [side] }, 'uid-running');
    await sync(env, pod);
    await env.manager.removeDeletedPod(await env.manager.getPodStatus('uid-running', 'web', 'prod'));
    expect(env.runtime.callsOf('removeContainer')).toHaveLength(0);
    expect(env.runtime.callsOf('removePodSandbox')).toHaveLength(0);
    expect((await env.manager.getPods(true))[0]?.containers.map((c) => c.state)).toEqual(['running']);
  });
});
