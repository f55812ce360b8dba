/**
 * Issue 22, point 1: a CSI driver that dies or hangs in the middle of a call. The driver is the volume
 * manager's test driver (the real CSI Node service on a unix socket, bind mounts behind it), registered
 * through plugins_registry as node-driver-registrar does; the kubelet is the real binary on the real
 * runtime. A driver that dies mid-call fails the publish (the pod waits with FailedMount and retries);
 * one that hangs holds only its own pod (CI: a 20-second answer; `KUBELET_TS_FAULTS=full`: no answer
 * at all, so the kubelet's 2-minute CSI deadline ends the call and the retry mounts). Other pods start
 * and keep running meanwhile, and the pod runs once the driver answers again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FakeRegistrationServer } from '@kubelet-ts/plugin-manager/testing';
import { createSystemMounter } from '@kubelet-ts/volume-manager';
import { createFakeCsiNodeServer } from '@kubelet-ts/volume-manager/testing';
import type { CsiHandler, CsiRequest, FakeCsiNodeServer } from '@kubelet-ts/volume-manager/testing';
import { allRunning, changed, FULL, report, restartSnapshot, sleep } from './fault-figures.js';
import { busyboxPod, createKubelet, eventually, registerCsiDriver, unmountAllUnder, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

const DRIVER = 'fault.csi.kubelet-ts.test';
// The hang: CI answers after HANG_MS; the full set never answers and waits out the kubelet's deadline.
const HANG_MS = 20_000;
const CSI_DEADLINE_MS = 120_000;
jest.setTimeout(FULL ? 900_000 : 300_000);

let kubelet: KubeletUnderTest;
let driver: FakeCsiNodeServer;
let registration: FakeRegistrationServer;
let csiSocket = '';
let backingDir = '';

/** A fresh driver process on the socket: default handlers (bind mounts of `<backingDir>/<volumeId>`). */
async function startDriver(): Promise<FakeCsiNodeServer> {
  const d = createFakeCsiNodeServer({ socketPath: csiSocket, mounter: createSystemMounter(), backingDir, nodeId: kubelet.nodeName });
  await d.start();
  return d;
}

function csiPod(name: string): Record<string, unknown> {
  return busyboxPod(name, [{ name: 'c', command: ['sleep', '36000'], volumeMounts: [{ name: 'data', mountPath: '/data' }] }], {
    volumes: [{ name: 'data', csi: { driver: DRIVER } }],
    terminationGracePeriodSeconds: 1,
  });
}

const plainPod = (name: string): Record<string, unknown> =>
  busyboxPod(name, [{ name: 'c', command: ['sleep', '36000'] }], { terminationGracePeriodSeconds: 1 });

/** The driver's NodePublishVolume calls for the pod (its target path is under the pod's dir). */
async function publishesFor(d: FakeCsiNodeServer, podName: string): Promise<CsiRequest[]> {
  const uid = (await kubelet.pod(podName))?.metadata.uid ?? '?';
  return d.calls.filter((c) => c.method === 'NodePublishVolume' && String(c.request.targetPath).includes(`/${uid}/`)).map((c) => c.request);
}

/** Replaces the driver's NodePublishVolume with `hold` for its first call; later calls answer as usual. */
function holdFirstPublish(d: FakeCsiNodeServer, hold: () => Promise<void>): void {
  const publish: CsiHandler | undefined = d.handlers.NodePublishVolume;
  if (publish === undefined) throw new Error('the test driver has no NodePublishVolume');
  let first = true;
  d.handlers.NodePublishVolume = async (req) => {
    if (first) {
      first = false;
      await hold();
    }
    return publish(req);
  };
}

beforeAll(async () => {
  kubelet = await createKubelet('csifault');
  backingDir = path.join(kubelet.hostDir, 'csi-backing');
  csiSocket = path.join(kubelet.rootDir, 'plugins', DRIVER, 'csi.sock');
  await fs.mkdir(backingDir, { recursive: true });
  await fs.mkdir(path.dirname(csiSocket), { recursive: true });
  driver = await startDriver();
  await kubelet.start();
  await waitHealthy(kubelet);
  registration = await registerCsiDriver(kubelet, DRIVER, csiSocket);
  await kubelet.writeManifest('steady.yaml', plainPod('steady'));
  await eventually('steady running', async () => allRunning(await kubelet.pod('steady'), 1), 60_000);
});

afterAll(async () => {
  await kubelet.stop();
  await registration?.stop();
  driver?.kill();
  await unmountAllUnder(kubelet.rootDir);
  await unmountAllUnder(kubelet.hostDir);
  await kubelet.cleanup();
});

test('a CSI driver that dies in the middle of NodePublishVolume: the pod waits and retries, other pods start and keep running, and the pod runs once the driver is back', async () => {
  const before = await restartSnapshot(kubelet, ['steady']);
  let inCall = false;
  holdFirstPublish(driver, () => {
    inCall = true;
    return new Promise<void>(() => undefined); // never answers: the driver dies first
  });
  await kubelet.writeManifest('dies.yaml', csiPod('dies'));
  await eventually('the publish under way', async () => inCall, 60_000, 100);
  driver.kill();
  const died = Date.now();

  // While the driver is away: the publish failed, the pod waits, a new pod starts, the others run.
  const failure = await eventually(
    'the failed publish reported',
    async () => /MountVolume\.SetUp failed\\?" pod=\\?"default\/dies-[^\n]*/.exec(kubelet.output())?.[0],
    60_000,
    250,
  );
  await kubelet.writeManifest('bystander.yaml', plainPod('bystander'));
  await eventually('bystander running while the driver is dead', async () => allRunning(await kubelet.pod('bystander'), 1), 30_000);
  const bystanderRunningMs = Date.now() - died;
  await sleep(5_000);
  expect((await kubelet.pod('dies'))?.status?.phase).toBe('Pending');
  expect(kubelet.running()).toBe(true);

  driver = await startDriver();
  const back = Date.now();
  await eventually('dies running once the driver is back', async () => allRunning(await kubelet.pod('dies'), 1), 60_000);
  const runningAfterRestartMs = Date.now() - back;
  const lost = changed(before, await restartSnapshot(kubelet, ['steady']));
  report('CSI driver killed mid-call', {
    failure: failure.slice(0, 300),
    bystanderRunningMs,
    runningAfterDriverRestartMs: runningAfterRestartMs,
    publishesAfterRestart: (await publishesFor(driver, 'dies')).length,
    steadyChanged: lost,
  });
  expect(lost).toEqual([]);
  expect((await publishesFor(driver, 'dies')).length).toBeGreaterThanOrEqual(1);
  await kubelet.removeManifest('dies.yaml');
  await kubelet.removeManifest('bystander.yaml');
  await eventually('dies unpublished', async () => driver.calls.some((c) => c.method === 'NodeUnpublishVolume'), 60_000);
});

test(`a CSI driver that hangs in NodePublishVolume (${FULL ? 'for good: the kubelet ends the call at its 2-minute deadline and retries' : `answering after ${HANG_MS / 1000} s`}): only its pod waits, and it runs after`, async () => {
  const before = await restartSnapshot(kubelet, ['steady']);
  let release: () => void = () => undefined;
  let inCall = false;
  holdFirstPublish(driver, () => {
    inCall = true;
    return new Promise<void>((resolve) => {
      release = resolve;
      if (!FULL) setTimeout(resolve, HANG_MS);
    });
  });
  try {
    await kubelet.writeManifest('hangs.yaml', csiPod('hangs'));
    await eventually('the publish under way', async () => inCall, 60_000, 100);
    const hungAt = Date.now();
    await kubelet.writeManifest('bystander2.yaml', plainPod('bystander2'));
    await eventually('bystander2 running while the driver hangs', async () => allRunning(await kubelet.pod('bystander2'), 1), 30_000);
    const bystanderRunningMs = Date.now() - hungAt;
    expect(Date.now() - hungAt).toBeLessThan(FULL ? CSI_DEADLINE_MS : HANG_MS);
    expect((await kubelet.pod('hangs'))?.status?.phase).toBe('Pending');

    const waitMs = FULL ? CSI_DEADLINE_MS + 60_000 : HANG_MS + 40_000;
    await eventually('hangs running after the hang', async () => allRunning(await kubelet.pod('hangs'), 1), waitMs, 500);
    const runningAfterMs = Date.now() - hungAt;
    const deadlineShown = /DEADLINE_EXCEEDED[^\n]*/.exec(kubelet.output())?.[0];
    const lost = changed(before, await restartSnapshot(kubelet, ['steady']));
    const published = (await publishesFor(driver, 'hangs')).length;
    report('CSI driver hangs mid-call', {
      hang: FULL ? 'no answer' : `${HANG_MS} ms`,
      bystanderRunningMs,
      runningAfterMs,
      publishes: published,
      deadlineShown: deadlineShown?.slice(0, 300),
      steadyChanged: lost,
    });
    expect(lost).toEqual([]);
    if (FULL) {
      // The kubelet gave up on the hung call at its deadline and published again.
      expect(runningAfterMs).toBeGreaterThanOrEqual(CSI_DEADLINE_MS);
      expect(deadlineShown).toBeDefined();
      expect(published).toBeGreaterThanOrEqual(2);
    } else {
      // A slow driver is waited for, not abandoned: one publish, answered late.
      expect(runningAfterMs).toBeGreaterThanOrEqual(HANG_MS);
      expect(published).toBe(1);
    }
  } finally {
    release();
  }
  await kubelet.removeManifest('hangs.yaml');
  await kubelet.removeManifest('bystander2.yaml');
});
