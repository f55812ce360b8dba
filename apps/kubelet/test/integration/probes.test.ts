/**
 * Issue 4: probes wired into the kubelet, on the real containerd. An exec readiness probe flips
 * Ready when a file appears (and back when it goes); a failing httpGet liveness probe restarts the
 * container with the probe-level grace period (lastState tells why: killed, exit 137); a startup
 * probe holds liveness back until it succeeds; invalid probe specs are reported.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { busyboxPod, condition, containerState, createKubelet, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  kubelet = await createKubelet('probes');
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('an exec readiness probe flips Ready when a file appears in the container, and back when it goes', async () => {
  const marker = path.join(kubelet.hostDir, 'ready');
  await fs.rm(marker, { force: true });
  await kubelet.writeManifest(
    'ready.yaml',
    busyboxPod(
      'ready',
      [
        {
          name: 'c',
          command: ['sleep', '3600'],
          volumeMounts: [{ name: 'host', mountPath: '/host' }],
          readinessProbe: { exec: { command: ['test', '-f', '/host/ready'] }, periodSeconds: 1, failureThreshold: 1 },
        },
      ],
      { volumes: [{ name: 'host', hostPath: { path: kubelet.hostDir, type: 'Directory' } }] },
    ),
  );
  await eventually('ready pod Running', async () => (await kubelet.pod('ready'))?.status?.phase === 'Running', 30_000);
  // Running but not ready while the file is missing (several probe periods).
  await sleep(3_000);
  let pod = await kubelet.pod('ready');
  expect(containerState(pod, 'c')).toMatchObject({ ready: false, started: true });
  expect(condition(pod, 'Ready')).toBe('False');
  expect(condition(pod, 'ContainersReady')).toBe('False');

  await fs.writeFile(marker, '');
  const readyAt = Date.now();
  await eventually(
    'container ready once the file exists',
    async () => containerState(await kubelet.pod('ready'), 'c')?.ready === true,
    15_000,
    100,
  );
  process.stdout.write(`readiness: Ready ${Date.now() - readyAt} ms after the file appeared (period 1 s)\n`);
  pod = await kubelet.pod('ready');
  expect(condition(pod, 'Ready')).toBe('True');
  expect(containerState(pod, 'c')?.restartCount).toBe(0);

  await fs.rm(marker);
  await eventually(
    'container not ready once the file is gone',
    async () => containerState(await kubelet.pod('ready'), 'c')?.ready === false,
    15_000,
    100,
  );
  expect(condition(await kubelet.pod('ready'), 'Ready')).toBe('False');
  // A readiness failure never restarts a container.
  expect(containerState(await kubelet.pod('ready'), 'c')?.restartCount).toBe(0);
  await kubelet.removeManifest('ready.yaml');
});

test('a failing httpGet liveness probe restarts the container with the probe-level grace period', async () => {
  // Nothing listens on 8080 in this container; sleep as PID 1 ignores SIGTERM, so the kill ends in
  // SIGKILL once the probe's 1 s grace period is over (the pod's 60 s would be used otherwise).
  await kubelet.writeManifest(
    'liveness.yaml',
    busyboxPod(
      'liveness',
      [
        {
          name: 'c',
          command: ['sleep', '3600'],
          livenessProbe: {
            httpGet: { path: '/healthz', port: 8080 },
            periodSeconds: 1,
            failureThreshold: 2,
            terminationGracePeriodSeconds: 1,
          },
        },
      ],
      { terminationGracePeriodSeconds: 60 },
    ),
  );
  await eventually('liveness pod Running', async () => (await kubelet.pod('liveness'))?.status?.phase === 'Running', 30_000);
  const restarted = await eventually(
    'container restarted by the liveness probe',
    async () => {
      const st = containerState(await kubelet.pod('liveness'), 'c');
      return st !== undefined && st.restartCount >= 1 && st.lastState?.terminated !== undefined ? st : undefined;
    },
    40_000,
    200,
  );
  // As upstream: the killed container's exit (SIGKILL after the grace period), reason Error.
  expect(restarted.lastState?.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
  const t = restarted.lastState?.terminated;
  const ranMs = Date.parse(t?.finishedAt ?? '') - Date.parse(t?.startedAt ?? '');
  // Two failed probes one second apart, then 1 s of grace: far below the pod's 60 s.
  expect(ranMs).toBeLessThan(20_000);
  const out = kubelet.output();
  expect(out).toMatch(
    /Liveness probe failed: Get \\?"http:\/\/[0-9.]+:8080\/healthz\\?": dial tcp [0-9.]+:8080: connect: connection refused/,
  );
  expect(out).toMatch(/Unhealthy/);
  expect(out).toMatch(/Container c failed liveness probe, will be restarted/);
  await kubelet.removeManifest('liveness.yaml');
});

test('a startup probe holds liveness back until it succeeds', async () => {
  // Liveness always fails; it must not run (and kill) before the startup probe passed after ~6 s.
  await kubelet.writeManifest(
    'startup.yaml',
    busyboxPod('startup', [
      {
        name: 'c',
        command: ['sh', '-c', 'sleep 6; touch /tmp/started; exec sleep 3600'],
        startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 30 },
        livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1, terminationGracePeriodSeconds: 1 },
      },
    ]),
  );
  await eventually('startup pod Running', async () => (await kubelet.pod('startup'))?.status?.phase === 'Running', 30_000);
  await sleep(3_000);
  const early = containerState(await kubelet.pod('startup'), 'c');
  expect(early).toMatchObject({ restartCount: 0, started: false, ready: false });

  const st = await eventually(
    'killed by liveness after startup succeeded',
    async () => {
      const s = containerState(await kubelet.pod('startup'), 'c');
      return s !== undefined && s.restartCount >= 1 && s.lastState?.terminated !== undefined ? s : undefined;
    },
    60_000,
    200,
  );
  const t = st.lastState?.terminated;
  const ranMs = Date.parse(t?.finishedAt ?? '') - Date.parse(t?.startedAt ?? '');
  // The first instance lived through its 6 s start-up before liveness could kill it.
  expect(ranMs).toBeGreaterThanOrEqual(6_000);
  expect(kubelet.output()).toMatch(/Liveness probe failed/);
  await kubelet.removeManifest('startup.yaml');
});

test('a failing startup probe restarts the container', async () => {
  await kubelet.writeManifest(
    'startup-fail.yaml',
    busyboxPod('startup-fail', [
      {
        name: 'c',
        command: ['sleep', '3600'],
        startupProbe: {
          exec: { command: ['sh', '-c', 'echo not yet; exit 1'] },
          periodSeconds: 1,
          failureThreshold: 2,
          terminationGracePeriodSeconds: 1,
        },
      },
    ]),
  );
  const st = await eventually(
    'restarted after the startup probe failed',
    async () => {
      const s = containerState(await kubelet.pod('startup-fail'), 'c');
      return s !== undefined && s.restartCount >= 1 ? s : undefined;
    },
    40_000,
    200,
  );
  expect(st.started).toBe(false);
  expect(kubelet.output()).toMatch(/Startup probe failed: not yet/);
  expect(kubelet.output()).toMatch(/Container c failed startup probe, will be restarted/);
  await kubelet.removeManifest('startup-fail.yaml');
});

test('invalid probe specs are reported with the file and field, and the pod is not started', async () => {
  await kubelet.writeManifest(
    'bad-probe.yaml',
    busyboxPod('bad-probe', [
      {
        name: 'c',
        command: ['sleep', '3600'],
        livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 },
        // Port 0 is out of range; a named port need not exist in the container (upstream accepts that).
        readinessProbe: { tcpSocket: { port: 0 } },
      },
    ]),
  );
  await eventually(
    'the bad probe spec reported',
    async () => {
      const out = kubelet.output();
      return (
        /bad-probe\.yaml.*spec\.containers\[0\]\.livenessProbe\.successThreshold/.test(out) &&
        /bad-probe\.yaml.*spec\.containers\[0\]\.readinessProbe\.tcpSocket\.port/.test(out)
      );
    },
    30_000,
  );
  expect((await kubelet.pods()).some((p) => p.metadata.name.startsWith('bad-probe-'))).toBe(false);
  await kubelet.removeManifest('bad-probe.yaml');
});
