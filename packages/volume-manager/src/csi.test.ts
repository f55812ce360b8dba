import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createCsiNodeClient, createStaticCsiDriverRegistry } from './csi-client.js';
import type { CsiNodeClient } from './csi-client.js';
import { makeTempDir, mountsUnder, settle, until } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import { csiEphemeralVolumeHandle } from './paths.js';
import { createFakeCsiNodeServer, csiStatus, FakeObjectSource } from './testing/index.js';
import type { FakeCsiNodeServer } from './testing/index.js';
import { createVolumeManager } from './volume-manager.js';

const DRIVER = 'hostpath.csi.k8s.io';
let tmp: TempDir;
let root: string;
let backing: string;
let server: FakeCsiNodeServer;
const clients: CsiNodeClient[] = [];

async function startServer(capabilities: string[]): Promise<void> {
  server = createFakeCsiNodeServer({
    socketPath: join(tmp.path, 'csi.sock'),
    mounter: createSystemMounter(),
    backingDir: backing,
    capabilities,
    nodeId: 'node-1',
  });
  await server.start();
}

beforeEach(async () => {
  tmp = await makeTempDir('vm-csi-');
  root = join(tmp.path, 'root');
  backing = join(tmp.path, 'backing');
  await mkdir(backing);
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.stop();
  await tmp.cleanup();
});

describe('createCsiNodeClient', () => {
  it('speaks the CSI Node service: info, capabilities, stats; errors carry the gRPC status', async () => {
    await startServer(['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS']);
    const client = createCsiNodeClient({ endpoint: server.endpoint, timeoutMs: 5_000 });
    clients.push(client);
    expect(await client.nodeGetInfo()).toEqual({ nodeId: 'node-1', maxVolumesPerNode: 0, topology: {} });
    expect(await client.nodeGetCapabilities()).toEqual(['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS']);
    expect(await client.nodeGetVolumeStats({ volumeId: 'v', volumePath: '/p' })).toEqual({
      usage: [{ available: 10, total: 20, used: 10, unit: 'BYTES' }],
    });
    server.handlers.NodePublishVolume = () => {
      throw csiStatus(grpc.status.NOT_FOUND, 'volume v not found');
    };
    await expect(client.nodePublishVolume({ volumeId: 'v', targetPath: '/t' })).rejects.toMatchObject({
      code: 'CSI_FAILED',
      message: 'rpc error: code = NOT_FOUND desc = volume v not found',
    });
    // Responses are validated: a driver without a node id is refused.
    server.handlers.NodeGetInfo = () => ({ nodeId: '' });
    await expect(client.nodeGetInfo()).rejects.toMatchObject({
      code: 'INVALID_OBJECT',
      message: expect.stringContaining('node_id is required'),
    });
  });
});

describe('csi inline volumes', () => {
  const podWith = (readOnly = false) =>
    newPod({
      name: 'web',
      uid: 'uid-c',
      spec: {
        serviceAccountName: 'sa',
        volumes: [
          {
            name: 'data',
            csi: {
              driver: DRIVER,
              readOnly,
              fsType: 'ext4',
              volumeAttributes: { size: '1Gi' },
              nodePublishSecretRef: { name: 'csi-creds' },
            },
          },
        ],
      },
      containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    });

  const manager = () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 'csi-creds', { token: 'abc' });
    return createVolumeManager({
      rootDir: root,
      sources: source,
      waitTimeoutMs: 0,
      csiDrivers: createStaticCsiDriverRegistry({ [DRIVER]: { endpoint: join(tmp.path, 'csi.sock'), podInfoOnMount: true } }),
    });
  };

  it('publishes at the upstream paths without staging, even for a driver with STAGE_UNSTAGE_VOLUME (as upstream for inline volumes); unpublishes on teardown', async () => {
    await startServer(['STAGE_UNSTAGE_VOLUME']);
    const vm = manager();
    const pod = podWith();
    await vm.waitForAttachAndMount(pod);

    const handle = csiEphemeralVolumeHandle('uid-c', 'data');
    expect(handle).toBe(`csi-${createHash('sha256').update('uid-cdata').digest('hex')}`);
    const volDir = join(root, 'pods', 'uid-c', 'volumes', 'kubernetes.io~csi', 'data');
    const target = join(volDir, 'mount');
    expect(server.calls.map((c) => c.method)).toEqual(['NodePublishVolume']);
    expect(server.calls[0]?.request).toMatchObject({
      volumeId: handle,
      stagingTargetPath: '',
      targetPath: target,
      readonly: false,
      volumeCapability: { mount: { fsType: 'ext4' }, accessMode: { mode: 'SINGLE_NODE_WRITER' } },
      secrets: { token: 'abc' },
      volumeContext: {
        size: '1Gi',
        'csi.storage.k8s.io/ephemeral': 'true',
        'csi.storage.k8s.io/pod.name': 'web',
        'csi.storage.k8s.io/pod.namespace': 'default',
        'csi.storage.k8s.io/pod.uid': 'uid-c',
        'csi.storage.k8s.io/serviceAccount.name': 'sa',
      },
    });
    expect(JSON.parse(await readFile(join(volDir, 'vol_data.json'), 'utf8'))).toEqual({
      specVolID: 'data',
      volumeHandle: handle,
      driverName: DRIVER,
      volumeLifecycleMode: 'Ephemeral',
    });
    expect(await vm.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([
      { containerPath: '/data', hostPath: target, readOnly: false },
    ]);

    // What the pod writes lands in the driver's storage, through the bind mount.
    await writeFile(join(target, 'hello'), 'from the pod');
    expect(await readFile(join(backing, handle, 'hello'), 'utf8')).toBe('from the pod');
    expect((await mountsUnder(root)).map((m) => m.mountPoint)).toEqual([target]);

    // Idempotent: set up again, nothing is published twice.
    await vm.waitForAttachAndMount(podWith());
    expect(server.calls.filter((c) => c.method === 'NodePublishVolume')).toHaveLength(1);

    server.calls.length = 0;
    await vm.teardownPod('uid-c');
    expect(server.calls.map((c) => [c.method, c.request.targetPath])).toEqual([['NodeUnpublishVolume', target]]);
    expect(await mountsUnder(root)).toEqual([]);
    await expect(stat(volDir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(backing, handle, 'hello'), 'utf8')).toBe('from the pod');
  });

  it('without podInfoOnMount passes only the volume attributes (no pod identity, no ephemeral marker)', async () => {
    await startServer([]);
    const vm = createVolumeManager({
      rootDir: root,
      waitTimeoutMs: 0,
      csiDrivers: createStaticCsiDriverRegistry({ [DRIVER]: server.endpoint }),
    });
    await vm.waitForAttachAndMount(
      newPod({ uid: 'uid-p', spec: { volumes: [{ name: 'd', csi: { driver: DRIVER, volumeAttributes: { a: 'b' } } }] } }),
    );
    expect(server.calls[0]?.request.volumeContext).toEqual({ a: 'b' });
    await vm.teardownPod('uid-p');
  });

  it('still unstages on teardown when vol_data.json (from an earlier version) names a staging path', async () => {
    await startServer(['STAGE_UNSTAGE_VOLUME']);
    await manager().waitForAttachAndMount(podWith());
    const volDir = join(root, 'pods', 'uid-c', 'volumes', 'kubernetes.io~csi', 'data');
    const data = JSON.parse(await readFile(join(volDir, 'vol_data.json'), 'utf8')) as Record<string, string>;
    const staging = join(root, 'plugins', 'kubernetes.io', 'csi', DRIVER, 'x', 'globalmount');
    await writeFile(join(volDir, 'vol_data.json'), JSON.stringify({ ...data, stagingTargetPath: staging }));
    server.calls.length = 0;
    const second = manager();
    await second.reconstruct();
    await second.teardownPod('uid-c');
    expect(server.calls.map((c) => [c.method, c.request.targetPath ?? c.request.stagingTargetPath])).toEqual([
      ['NodeUnpublishVolume', join(volDir, 'mount')],
      ['NodeUnstageVolume', staging],
    ]);
  });

  it('publishes directly (read-only) when the driver does not stage', async () => {
    await startServer([]);
    const vm = manager();
    const pod = podWith(true);
    await vm.waitForAttachAndMount(pod);
    expect(server.calls.map((c) => c.method)).toEqual(['NodePublishVolume']);
    expect(server.calls[0]?.request).toMatchObject({ readonly: true, stagingTargetPath: '' });
    const [mount] = await vm.getMountsForContainer(pod, pod.spec.containers[0]!);
    expect(mount?.readOnly).toBe(true);
    await expect(writeFile(join(mount!.hostPath, 'x'), 'y')).rejects.toMatchObject({ code: 'EROFS' });
    server.calls.length = 0;
    await vm.teardownPod('uid-c');
    expect(server.calls.map((c) => c.method)).toEqual(['NodeUnpublishVolume']);
    expect(await mountsUnder(root)).toEqual([]);
  });

  it('rebuilds a published CSI volume after a restart and tears it down through the driver', async () => {
    await startServer(['STAGE_UNSTAGE_VOLUME']);
    await manager().waitForAttachAndMount(podWith());
    const second = manager();
    await second.reconstruct();
    server.calls.length = 0;
    await second.waitForAttachAndMount(podWith());
    expect(server.calls).toEqual([]);
    await second.teardownPod('uid-c');
    expect(server.calls.map((c) => c.method)).toEqual(['NodeUnpublishVolume']);
    expect(await mountsUnder(root)).toEqual([]);
  });

  it('fails SetUp for an unknown driver and for a failing publish, with the upstream messages', async () => {
    await startServer([]);
    const vm = createVolumeManager({ rootDir: root, waitTimeoutMs: 0, csiDrivers: createStaticCsiDriverRegistry({}) });
    await expect(
      vm.waitForAttachAndMount(newPod({ uid: 'uid-u', spec: { volumes: [{ name: 'd', csi: { driver: 'nope.csi' } }] } })),
    ).rejects.toThrow('MountVolume.SetUp failed for volume "d" : driver name nope.csi not found in the list of registered CSI drivers');
    server.handlers.NodePublishVolume = () => {
      throw csiStatus(grpc.status.RESOURCE_EXHAUSTED, 'no space');
    };
    const vm2 = createVolumeManager({
      rootDir: root,
      waitTimeoutMs: 0,
      csiDrivers: createStaticCsiDriverRegistry({ [DRIVER]: server.endpoint }),
    });
    await expect(
      vm2.waitForAttachAndMount(newPod({ uid: 'uid-v', spec: { volumes: [{ name: 'd', csi: { driver: DRIVER } }] } })),
    ).rejects.toThrow('MountVolume.SetUp failed for volume "d" : rpc error: code = RESOURCE_EXHAUSTED desc = no space');
    await vm2.teardownPod('uid-v');
    await vm.teardownPod('uid-u');
  });

  it('a driver that hangs in NodePublishVolume holds back only its own pod: the reconciler still re-syncs the others', async () => {
    await startServer([]);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const publish = server.handlers.NodePublishVolume;
    if (publish === undefined) throw new Error('fake CSI server has no NodePublishVolume');
    server.handlers.NodePublishVolume = async (req) => {
      await released;
      return publish(req);
    };
    const clock = new FakeClock();
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { k: 'v1' });
    const vm = createVolumeManager({
      rootDir: root,
      sources: source,
      clock,
      waitTimeoutMs: 0,
      resyncPeriodMs: 1_000,
      reconcilePeriodMs: 1_000,
      csiDrivers: createStaticCsiDriverRegistry({ [DRIVER]: server.endpoint }),
    });
    // The hung pod comes first, so a reconciler that waits for each pod in turn would never reach the other.
    const hungPod = newPod({ uid: 'uid-hung', spec: { volumes: [{ name: 'd', csi: { driver: DRIVER } }] } });
    const hung = vm.waitForAttachAndMount(hungPod);
    await until(() => server.calls.some((c) => c.method === 'NodePublishVolume'), 'the publish under way');
    const other = newPod({ uid: 'uid-other', spec: { volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] } });
    await vm.waitForAttachAndMount(other);
    const file = join(root, 'pods', 'uid-other', 'volumes', 'kubernetes.io~configmap', 'cfg', 'k');
    const controller = new AbortController();
    const running = vm.run(controller.signal);
    try {
      source.setConfigMap('default', 'cfg', { k: 'v2' });
      await settle();
      await clock.advance(1_000);
      await until(async () => (await readFile(file, 'utf8')) === 'v2', 'the other pod re-synced');
      // The hung pod got one publish: its own pass did not pile up behind it.
      expect(server.calls.filter((c) => c.method === 'NodePublishVolume')).toHaveLength(1);
    } finally {
      release();
      await hung;
      controller.abort();
      await running;
    }
    await vm.teardownPod('uid-hung');
    await vm.teardownPod('uid-other');
  });
});
