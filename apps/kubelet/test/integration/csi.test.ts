/**
 * Issue "volume-manager", CSI through the real kubelet: a CSI node plugin started by the test (the
 * volume-manager fake: the real CSI Node gRPC service on a unix socket, backed by bind mounts)
 * registers through `<root-dir>/plugins_registry` as node-driver-registrar would, and a static pod
 * with an inline CSI volume gets it published at upstream's path, sees its content, and has it
 * unpublished and removed when the pod goes. As upstream, inline (ephemeral) volumes are never
 * staged, even by a driver with STAGE_UNSTAGE_VOLUME: NodeStage/NodeUnstage are for PV-backed
 * volumes, which need API mode.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FakeRegistrationServer } from '@kubelet-ts/plugin-manager/testing';
import { createSystemMounter, csiEphemeralVolumeHandle } from '@kubelet-ts/volume-manager';
import { createFakeCsiNodeServer } from '@kubelet-ts/volume-manager/testing';
import type { FakeCsiNodeServer } from '@kubelet-ts/volume-manager/testing';
import { busyboxPod, createKubelet, eventually, waitHealthy, mountsUnder, registerCsiDriver, unmountAllUnder } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

const DRIVER = 'bind.csi.kubelet-ts.test';

let kubelet: KubeletUnderTest;
let csi: FakeCsiNodeServer;
let registration: FakeRegistrationServer;
let backingDir = '';
let csiSocket = '';

const exists = (p: string): Promise<boolean> =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  kubelet = await createKubelet('csi');
  backingDir = path.join(kubelet.hostDir, 'csi-backing');
  // Where upstream drivers put their service socket; the registration socket names it as the endpoint.
  csiSocket = path.join(kubelet.rootDir, 'plugins', DRIVER, 'csi.sock');
  await fs.mkdir(backingDir, { recursive: true });
  await fs.mkdir(path.dirname(csiSocket), { recursive: true });
  // STAGE_UNSTAGE_VOLUME advertised on purpose: the kubelet must still not stage an inline volume.
  csi = createFakeCsiNodeServer({
    socketPath: csiSocket,
    mounter: createSystemMounter(),
    backingDir,
    capabilities: ['STAGE_UNSTAGE_VOLUME'],
    nodeId: kubelet.nodeName,
  });
  await csi.start();
  await kubelet.start();
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.stop();
  await registration?.stop();
  await csi?.stop();
  await unmountAllUnder(kubelet.rootDir);
  await unmountAllUnder(kubelet.hostDir);
  await kubelet.cleanup();
});

test('a CSI driver registers through plugins_registry; an inline CSI volume is published at the upstream path, seen by the container, unpublished and removed with the pod', async () => {
  registration = await registerCsiDriver(kubelet, DRIVER, csiSocket);
  expect(registration.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
  expect(csi.calls.map((c) => c.method)).toEqual(['NodeGetInfo']);

  // The driver's storage gets content before it is published, so the container can read it.
  const publish = csi.handlers.NodePublishVolume;
  if (publish === undefined) throw new Error('fake CSI server has no NodePublishVolume');
  csi.handlers.NodePublishVolume = async (req) => {
    const volumeId = String(req.volumeId);
    await fs.mkdir(path.join(backingDir, volumeId), { recursive: true });
    await fs.writeFile(path.join(backingDir, volumeId, 'hello'), 'from-the-driver');
    return publish(req);
  };

  const out = path.join(kubelet.hostDir, 'csi-out');
  await kubelet.writeManifest(
    'csi.yaml',
    busyboxPod(
      'csi',
      [
        {
          name: 'app',
          command: ['sh', '-c', 'cat /data/hello > /out/hello; echo from-the-pod > /data/written; touch /out/done; exec sleep 3600'],
          volumeMounts: [
            { name: 'data', mountPath: '/data' },
            { name: 'out', mountPath: '/out' },
          ],
        },
      ],
      {
        volumes: [
          { name: 'data', csi: { driver: DRIVER, volumeAttributes: { size: '1Mi' } } },
          { name: 'out', hostPath: { path: out, type: 'DirectoryOrCreate' } },
        ],
      },
    ),
  );
  const uid = await eventually('uid of csi', async () => (await kubelet.pod('csi'))?.metadata.uid, 30_000);
  await eventually('the container read the volume', () => exists(path.join(out, 'done')), 60_000);

  const volumeId = csiEphemeralVolumeHandle(uid, 'data');
  const volumeDir = path.join(kubelet.rootDir, 'pods', uid, 'volumes', 'kubernetes.io~csi', 'data');
  const target = path.join(volumeDir, 'mount');
  // Only NodePublishVolume, at upstream's target path (no NodeStageVolume for an inline volume).
  expect(csi.calls.slice(1).map((c) => c.method)).toEqual(['NodePublishVolume']);
  expect(csi.calls[1]?.request).toMatchObject({
    volumeId,
    targetPath: target,
    stagingTargetPath: '',
    readonly: false,
    volumeContext: { size: '1Mi' },
  });
  expect(await fs.readFile(path.join(out, 'hello'), 'utf8')).toBe('from-the-driver');
  expect(await fs.readFile(path.join(backingDir, volumeId, 'written'), 'utf8')).toBe('from-the-pod\n');
  expect((await mountsUnder(volumeDir)).map((m) => m.mountPoint)).toEqual([target]);
  expect(JSON.parse(await fs.readFile(path.join(volumeDir, 'vol_data.json'), 'utf8'))).toMatchObject({
    driverName: DRIVER,
    volumeHandle: volumeId,
    volumeLifecycleMode: 'Ephemeral',
  });

  await kubelet.removeManifest('csi.yaml');
  await eventually('the volume was unpublished', async () => csi.calls.some((c) => c.method === 'NodeUnpublishVolume'), 60_000);
  await eventually('csi: pod dir removed', async () => !(await exists(path.join(kubelet.rootDir, 'pods', uid))), 60_000);
  expect(csi.calls.slice(1).map((c) => [c.method, c.request.targetPath])).toEqual([
    ['NodePublishVolume', target],
    ['NodeUnpublishVolume', target],
  ]);
  expect(await mountsUnder(path.join(kubelet.rootDir, 'pods'))).toEqual([]);
  // The driver's data outlives the pod's mount.
  expect(await fs.readFile(path.join(backingDir, volumeId, 'written'), 'utf8')).toBe('from-the-pod\n');

  // The registration socket goes away: the driver is deregistered.
  await registration.stop();
  await eventually('the driver was deregistered', async () => kubelet.output().includes('Plugin deregistered'), 30_000, 100);
});
