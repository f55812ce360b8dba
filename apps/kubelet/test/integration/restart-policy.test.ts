/**
 * Issue 3, acceptance 2: restart policies as upstream. Always restarts a failing container with
 * back-off (10 s, then 20 s, …) and /pods shows CrashLoopBackOff; OnFailure restarts only
 * failures; Never restarts nothing; exit 0 under Never or OnFailure ends Succeeded.
 */
import { busyboxPod, containerState, createKubelet, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  kubelet = await createKubelet('restart');
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

test('restart policies: Never and OnFailure end Succeeded on exit 0, Never ends Failed on exit 1, OnFailure restarts a failure', async () => {
  await kubelet.writeManifest(
    'never-ok.yaml',
    busyboxPod('never-ok', [{ name: 'c', command: ['sh', '-c', 'exit 0'] }], { restartPolicy: 'Never' }),
  );
  await kubelet.writeManifest(
    'never-fail.yaml',
    busyboxPod('never-fail', [{ name: 'c', command: ['sh', '-c', 'exit 1'] }], { restartPolicy: 'Never' }),
  );
  await kubelet.writeManifest(
    'onfailure-ok.yaml',
    busyboxPod('onfailure-ok', [{ name: 'c', command: ['sh', '-c', 'exit 0'] }], { restartPolicy: 'OnFailure' }),
  );
  await kubelet.writeManifest(
    'onfailure-fail.yaml',
    busyboxPod('onfailure-fail', [{ name: 'c', command: ['sh', '-c', 'exit 2'] }], { restartPolicy: 'OnFailure' }),
  );

  const phase = async (name: string): Promise<string | undefined> => (await kubelet.pod(name))?.status?.phase;
  await eventually('never-ok Succeeded', async () => (await phase('never-ok')) === 'Succeeded', 30_000);
  await eventually('onfailure-ok Succeeded', async () => (await phase('onfailure-ok')) === 'Succeeded', 30_000);
  await eventually('never-fail Failed', async () => (await phase('never-fail')) === 'Failed', 30_000);
  await eventually(
    'onfailure-fail restarted',
    async () => (containerState(await kubelet.pod('onfailure-fail'), 'c')?.restartCount ?? 0) >= 1,
    30_000,
  );

  const neverOk = containerState(await kubelet.pod('never-ok'), 'c');
  expect(neverOk?.restartCount).toBe(0);
  expect(neverOk?.state?.terminated?.reason).toBe('Completed');
  expect(neverOk?.state?.terminated?.exitCode).toBe(0);
  const neverFail = containerState(await kubelet.pod('never-fail'), 'c');
  expect(neverFail?.restartCount).toBe(0);
  expect(neverFail?.state?.terminated?.reason).toBe('Error');
  expect(neverFail?.state?.terminated?.exitCode).toBe(1);
  expect(containerState(await kubelet.pod('onfailure-ok'), 'c')?.restartCount).toBe(0);
  expect(await phase('onfailure-fail')).toBe('Running');
});

test('Always restarts exit 1 with growing back-off and /pods shows CrashLoopBackOff', async () => {
  await kubelet.writeManifest('crash.yaml', busyboxPod('crash', [{ name: 'c', command: ['sh', '-c', 'echo failing; exit 1'] }]));
  // Record when each restart count is first seen.
  const seenAt = new Map<number, number>();
  let sawCrashLoop: { reason?: string; message?: string } | undefined;
  let lastTerminated: { exitCode: number; reason?: string } | undefined;
  // As upstream, the first restart is immediate; then the back-off applies: 10 s, then 20 s.
  await eventually(
    'four container starts (restartCount 3)',
    async () => {
      const status = containerState(await kubelet.pod('crash'), 'c');
      if (status === undefined) return false;
      if (!seenAt.has(status.restartCount)) seenAt.set(status.restartCount, Date.now());
      if (status.state?.waiting?.reason === 'CrashLoopBackOff') sawCrashLoop = status.state.waiting;
      if (status.lastState?.terminated) lastTerminated = status.lastState.terminated;
      return status.restartCount >= 3 && sawCrashLoop !== undefined;
    },
    120_000,
    200,
  );
  const at = (n: number): number => {
    const t = seenAt.get(n);
    if (t === undefined) throw new Error(`restartCount ${n} was never observed (seen: ${[...seenAt.keys()].join(', ')})`);
    return t;
  };
  const firstBackoffGap = at(2) - at(1);
  const secondBackoffGap = at(3) - at(2);
  process.stdout.write(
    `crash pod: restart gaps ${(seenAt.get(1) ?? NaN) - (seenAt.get(0) ?? NaN)} ms, ${firstBackoffGap} ms, ${secondBackoffGap} ms (upstream: immediate, 10 s, 20 s)\n`,
  );
  expect(firstBackoffGap).toBeGreaterThanOrEqual(9_000);
  expect(secondBackoffGap).toBeGreaterThanOrEqual(19_000);
  expect(secondBackoffGap).toBeGreaterThan(firstBackoffGap + 5_000);
  // The restart comes when the back-off ends, not a generic retry period later (generous bounds).
  expect(firstBackoffGap).toBeLessThan(16_000);
  expect(secondBackoffGap).toBeLessThan(28_000);
  expect(sawCrashLoop?.message).toMatch(/back-off 10s|back-off 20s|back-off 40s/);
  expect(lastTerminated?.exitCode).toBe(1);
  expect(lastTerminated?.reason).toBe('Error');
  const pod = await kubelet.pod('crash');
  expect(pod?.status?.phase).toBe('Running');
});
