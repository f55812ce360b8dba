/**
 * Issue 3, acceptance 1, 3 and 4: static pods from the manifest directory run for real on
 * containerd; init containers run in order; editing a manifest replaces the pod; deleting it
 * stops everything within the grace period after its preStop hook ran.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  BUSYBOX,
  HTTP_IMAGE,
  busyboxPod,
  condition,
  containerState,
  createKubelet,
  criContainersOf,
  criSandboxesOf,
  eventually,
  waitHealthy,
} from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  kubelet = await createKubelet('static');
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

test('a two-container pod written into the manifest directory runs, and its pod IP serves HTTP to the host', async () => {
  const written = Date.now();
  await kubelet.writeManifest('web.yaml', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [
        { name: 'server', image: HTTP_IMAGE(), ports: [{ containerPort: 8080, name: 'http' }] },
        { name: 'sidecar', image: BUSYBOX(), command: ['sleep', '3600'] },
      ],
    },
  });
  // Both containers running as seen through CRI.
  await eventually(
    'both containers running in containerd',
    async () => {
      const containers = await criContainersOf(kubelet, 'web');
      const running = containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.metadata?.name);
      return running.includes('server') && running.includes('sidecar');
    },
    20_000,
    100,
  );
  const runningAfterMs = Date.now() - written;
  const pod = await eventually(
    'web Running in /pods',
    async () => {
      const p = await kubelet.pod('web');
      return p?.status?.phase === 'Running' && containerState(p, 'server')?.state?.running && containerState(p, 'sidecar')?.state?.running
        ? p
        : undefined;
    },
    20_000,
    100,
  );
  // The issue names 5 s for this (image present); the latency is measured in bench/, the bound here is generous.
  process.stdout.write(`web pod: both containers running ${runningAfterMs} ms after the manifest was written\n`);
  expect(runningAfterMs).toBeLessThan(20_000);
  expect(pod.metadata.annotations?.['kubernetes.io/config.source']).toBe('file');
  expect(condition(pod, 'Ready')).toBe('True');
  expect(condition(pod, 'ContainersReady')).toBe('True');
  const ip = pod.status?.podIP;
  expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  const body = await eventually(
    'HTTP from the pod IP',
    async () => {
      const response = await fetch(`http://${ip}:8080/`);
      return response.status === 200 ? await response.text() : undefined;
    },
    10_000,
  );
  expect(body.trim()).toBe('ok');
});

test('init containers run in order before the main container; a failing init container blocks it and is reported', async () => {
  const orderFile = path.join(kubelet.hostDir, 'init-order');
  const hostVolume = [{ name: 'host', hostPath: { path: kubelet.hostDir, type: 'Directory' } }];
  const mount = [{ name: 'host', mountPath: '/host' }];
  await kubelet.writeManifest(
    'init.yaml',
    busyboxPod('init', [{ name: 'main', command: ['sh', '-c', 'echo main >> /host/init-order; exec sleep 3600'], volumeMounts: mount }], {
      volumes: hostVolume,
      initContainers: [
        { name: 'one', image: BUSYBOX(), command: ['sh', '-c', 'echo one >> /host/init-order; sleep 1'], volumeMounts: mount },
        { name: 'two', image: BUSYBOX(), command: ['sh', '-c', 'echo two >> /host/init-order'], volumeMounts: mount },
      ],
    }),
  );
  await eventually('init pod Running', async () => (await kubelet.pod('init'))?.status?.phase === 'Running', 30_000);
  await eventually('main wrote its line', async () => (await fs.readFile(orderFile, 'utf8')).includes('main'), 10_000);
  expect((await fs.readFile(orderFile, 'utf8')).trim().split('\n')).toEqual(['one', 'two', 'main']);
  const pod = await kubelet.pod('init');
  expect(pod?.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.reason])).toEqual([
    ['one', 'Completed'],
    ['two', 'Completed'],
  ]);
  expect(condition(pod, 'Initialized')).toBe('True');

  // A failing init container under restartPolicy Never: the main container never starts.
  await kubelet.writeManifest(
    'init-fail.yaml',
    busyboxPod('init-fail', [{ name: 'main', command: ['sleep', '3600'] }], {
      restartPolicy: 'Never',
      initContainers: [{ name: 'broken', image: BUSYBOX(), command: ['sh', '-c', 'echo broken >&2; exit 3'] }],
    }),
  );
  const failed = await eventually(
    'init-fail Failed',
    async () => {
      const p = await kubelet.pod('init-fail');
      return p?.status?.phase === 'Failed' ? p : undefined;
    },
    30_000,
  );
  const broken = failed.status?.initContainerStatuses?.find((s) => s.name === 'broken');
  expect(broken?.state?.terminated?.exitCode).toBe(3);
  expect(broken?.state?.terminated?.reason).toBe('Error');
  expect(condition(failed, 'Initialized')).toBe('False');
  const main = containerState(failed, 'main');
  expect(main?.state?.running).toBeUndefined();
  expect(main?.state?.waiting?.reason ?? main?.state?.terminated?.reason).toBeDefined();
  const criMain = (await criContainersOf(kubelet, 'init-fail')).filter((c) => c.metadata?.name === 'main');
  expect(criMain).toHaveLength(0);
});

test('editing a manifest replaces the pod; deleting it runs preStop and removes its containers and sandbox within the grace period', async () => {
  const preStopFile = path.join(kubelet.hostDir, 'prestop-ran');
  const manifest = (message: string): Record<string, unknown> =>
    busyboxPod(
      'edit',
      [
        {
          name: 'app',
          command: ['sh', '-c', `echo ${message}; trap 'exit 0' TERM; while true; do sleep 1; done`],
          volumeMounts: [{ name: 'host', mountPath: '/host' }],
          lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo stopped-$(hostname) >> /host/prestop-ran'] } } },
        },
      ],
      { terminationGracePeriodSeconds: 10, volumes: [{ name: 'host', hostPath: { path: kubelet.hostDir, type: 'Directory' } }] },
    );
  await kubelet.writeManifest('edit.yaml', manifest('first'));
  const first = await eventually(
    'edit Running',
    async () => {
      const p = await kubelet.pod('edit');
      return p?.status?.phase === 'Running' ? p : undefined;
    },
    30_000,
  );
  const firstSandboxes = await criSandboxesOf(kubelet, 'edit');
  expect(firstSandboxes.filter((s) => s.state === 'SANDBOX_READY')).toHaveLength(1);

  await kubelet.writeManifest('edit.yaml', manifest('second'));
  const second = await eventually(
    'edit replaced by a pod with a new UID',
    async () => {
      const p = await kubelet.pod('edit');
      return p !== undefined && p.metadata.uid !== first.metadata.uid && p.status?.phase === 'Running' ? p : undefined;
    },
    40_000,
  );
  // The old pod's sandbox is stopped and gone; its preStop hook ran.
  await eventually(
    "the first pod's sandbox removed",
    async () => {
      const sandboxes = await criSandboxesOf(kubelet, 'edit');
      return !sandboxes.some((s) => s.labels?.['io.kubernetes.pod.uid'] === first.metadata.uid);
    },
    30_000,
  );
  expect(await fs.readFile(preStopFile, 'utf8')).toContain('stopped');

  await fs.rm(preStopFile, { force: true });
  const deletedAt = Date.now();
  await kubelet.removeManifest('edit.yaml');
  await eventually(
    'every container and sandbox of the pod removed',
    async () => {
      const [containers, sandboxes] = await Promise.all([criContainersOf(kubelet, 'edit'), criSandboxesOf(kubelet, 'edit')]);
      return containers.length === 0 && sandboxes.length === 0;
    },
    30_000,
  );
  const removedAfterMs = Date.now() - deletedAt;
  process.stdout.write(`edit pod: removed ${removedAfterMs} ms after its manifest was deleted (grace period 10 s)\n`);
  // The container exits on TERM at once, so everything is gone well within the 10 s grace period.
  expect(removedAfterMs).toBeLessThan(10_000);
  expect(await fs.readFile(preStopFile, 'utf8')).toContain('stopped');
  expect(await kubelet.pod('edit')).toBeUndefined();
  expect(second.metadata.uid).not.toBe(first.metadata.uid);
});
