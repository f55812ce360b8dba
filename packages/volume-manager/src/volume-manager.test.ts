import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { makeTempDir, mountsUnder, settle, until } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import { FakeMounter, FakeObjectSource, recordingMounter } from './testing/index.js';
import { createVolumeManager } from './volume-manager.js';

let tmp: TempDir;
let root: string;
beforeEach(async () => {
  tmp = await makeTempDir('vm-reconciler-');
  root = join(tmp.path, 'root');
});
afterEach(async () => {
  await tmp.cleanup();
});

const volDir = (uid: string, plugin: string, name: string) => join(root, 'pods', uid, 'volumes', `kubernetes.io~${plugin}`, name);

describe('waitForAttachAndMount', () => {
  it('retries a failed SetUp with back-off until it succeeds (the pod waits)', async () => {
    const clock = new FakeClock();
    const source = new FakeObjectSource();
    const vm = createVolumeManager({ rootDir: root, sources: source, clock, waitTimeoutMs: 60_000 });
    const pod = newPod({ uid: 'uid-r', spec: { volumes: [{ name: 'cfg', configMap: { name: 'late' } }] } });
    let done = false;
    const waiting = vm.waitForAttachAndMount(pod).then(() => {
      done = true;
    });
    await until(() => source.calls.length === 1, 'the first attempt');
    // Back-off: nothing is tried again before 500 ms.
    await clock.advance(400);
    await settle();
    expect(source.calls).toHaveLength(1);
    expect(done).toBe(false);
    source.setConfigMap('default', 'late', { k: 'v' });
    await clock.advance(100);
    await waiting;
    expect(source.calls).toHaveLength(2);
    expect(await readFile(join(volDir('uid-r', 'configmap', 'cfg'), 'k'), 'utf8')).toBe('v');
  });

  it('doubles the delay between attempts and fails with the FailedMount message at the deadline', async () => {
    const clock = new FakeClock();
    const source = new FakeObjectSource();
    const vm = createVolumeManager({ rootDir: root, sources: source, clock, waitTimeoutMs: 3_000 });
    const pod = newPod({ uid: 'uid-t', spec: { volumes: [{ name: 'cfg', configMap: { name: 'never' } }] } });
    const result = vm.waitForAttachAndMount(pod).then(
      () => undefined,
      (err: unknown) => err as Error & { code: string },
    );
    await until(() => source.calls.length === 1, 'the first attempt');
    await clock.advance(500);
    await until(() => source.calls.length === 2, 'the second attempt');
    await clock.advance(999);
    await settle();
    expect(source.calls).toHaveLength(2);
    await clock.advance(1);
    await until(() => source.calls.length === 3, 'the third attempt (after 1 s)');
    await clock.advance(2_000);
    const err = await result;
    expect(err).toMatchObject({ code: 'SETUP_FAILED', message: 'MountVolume.SetUp failed for volume "cfg" : configmap "never" not found' });
  });

  it('stops waiting when the signal aborts', async () => {
    const clock = new FakeClock();
    const vm = createVolumeManager({ rootDir: root, sources: new FakeObjectSource(), clock, waitTimeoutMs: 60_000 });
    const controller = new AbortController();
    const result = vm
      .waitForAttachAndMount(newPod({ uid: 'uid-a', spec: { volumes: [{ name: 'c', configMap: { name: 'x' } }] } }), controller.signal)
      .catch((err: unknown) => err);
    await settle();
    controller.abort(new Error('pod deleted'));
    expect(await result).toMatchObject({ code: 'ABORTED' });
  });

  it('is idempotent: a second call mounts nothing more (fake mounter)', async () => {
    const mounter = new FakeMounter();
    const vm = createVolumeManager({ rootDir: root, mounter, waitTimeoutMs: 0 });
    const pod = newPod({ uid: 'uid-i', spec: { volumes: [{ name: 'm', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } }] } });
    await vm.waitForAttachAndMount(pod);
    await vm.waitForAttachAndMount(pod);
    expect(mounter.calls).toEqual([
      { op: 'mount', source: 'tmpfs', target: volDir('uid-i', 'empty-dir', 'm'), fsType: 'tmpfs', options: ['size=1048576'] },
    ]);
    expect(vm.getMountedVolumes('uid-i')).toEqual([
      {
        podUID: 'uid-i',
        volumeName: 'm',
        pluginName: 'kubernetes.io/empty-dir',
        path: volDir('uid-i', 'empty-dir', 'm'),
        reconstructed: false,
      },
    ]);
  });

  it('does not read mountinfo on the syncs of a pod whose volumes are set up (a hot path: every pod sync)', async () => {
    const mounter = new FakeMounter();
    let lists = 0;
    const list = mounter.list.bind(mounter);
    mounter.list = () => {
      lists++;
      return list();
    };
    const vm = createVolumeManager({ rootDir: root, mounter, waitTimeoutMs: 0 });
    const pod = newPod({
      uid: 'uid-h',
      spec: {
        volumes: [
          { name: 'e', emptyDir: {} },
          { name: 'm', emptyDir: { medium: 'Memory' } },
        ],
      },
    });
    await vm.waitForAttachAndMount(pod);
    const afterFirst = lists;
    for (let i = 0; i < 5; i++) await vm.waitForAttachAndMount(pod);
    expect(lists).toBe(afterFirst);
  });

  it('retries a failed mount (fake mounter error injected once)', async () => {
    const clock = new FakeClock();
    const mounter = new FakeMounter();
    mounter.errors.mount.push(new Error('mount: tmpfs: resource busy'));
    const vm = createVolumeManager({ rootDir: root, mounter, clock, waitTimeoutMs: 10_000 });
    const waiting = vm.waitForAttachAndMount(newPod({ uid: 'uid-f', spec: { volumes: [{ name: 'm', emptyDir: { medium: 'Memory' } }] } }));
    await until(() => mounter.calls.length === 1, 'the first mount');
    await clock.advance(500);
    await waiting;
    expect(mounter.calls.map((c) => c.op)).toEqual(['mount', 'mount']);
    expect(mounter.mounts.map((m) => m.mountPoint)).toEqual([volDir('uid-f', 'empty-dir', 'm')]);
  });
});

describe('teardownPod', () => {
  it('is idempotent, and works for pods it never saw', async () => {
    const vm = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
    await vm.waitForAttachAndMount(newPod({ uid: 'uid-d', spec: { volumes: [{ name: 'e', emptyDir: {} }] } }));
    await vm.teardownPod('uid-d');
    await vm.teardownPod('uid-d');
    await vm.teardownPod('never-seen');
    await expect(stat(join(root, 'pods', 'uid-d', 'volumes'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never deletes through a mount it could not unmount', async () => {
    const mounter = new FakeMounter();
    const vm = createVolumeManager({ rootDir: root, mounter, waitTimeoutMs: 0 });
    await vm.waitForAttachAndMount(newPod({ uid: 'uid-b', spec: { volumes: [{ name: 'm', emptyDir: { medium: 'Memory' } }] } }));
    await writeFile(join(volDir('uid-b', 'empty-dir', 'm'), 'keep'), 'data');
    mounter.errors.unmount.push(new Error('umount: target is busy'));
    await expect(vm.teardownPod('uid-b')).rejects.toMatchObject({
      code: 'MOUNT_FAILED',
      message: expect.stringContaining('UnmountVolume.TearDown failed for volume "m"'),
    });
    expect(await readFile(join(volDir('uid-b', 'empty-dir', 'm'), 'keep'), 'utf8')).toBe('data');
    // Retried later, it goes through.
    await vm.teardownPod('uid-b');
    expect(mounter.mounts).toHaveLength(0);
    await expect(stat(volDir('uid-b', 'empty-dir', 'm'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('retries a failed teardown from run() after its back-off', async () => {
    const clock = new FakeClock();
    const mounter = new FakeMounter();
    const vm = createVolumeManager({ rootDir: root, mounter, clock, waitTimeoutMs: 0, reconcilePeriodMs: 100 });
    await vm.waitForAttachAndMount(newPod({ uid: 'uid-x', spec: { volumes: [{ name: 'm', emptyDir: { medium: 'Memory' } }] } }));
    mounter.errors.unmount.push(new Error('umount: target is busy'));
    await expect(vm.teardownPod('uid-x')).rejects.toMatchObject({ code: 'MOUNT_FAILED' });
    const controller = new AbortController();
    const running = vm.run(controller.signal);
    try {
      await clock.advance(300);
      await settle();
      expect(mounter.calls.filter((c) => c.op === 'unmount')).toHaveLength(1);
      await clock.advance(300);
      await until(() => mounter.mounts.length === 0, 'the retried unmount');
      await until(
        async () =>
          !(await stat(volDir('uid-x', 'empty-dir', 'm')).then(
            () => true,
            () => false,
          )),
        'the volume dir removal',
      );
    } finally {
      controller.abort();
      await running;
    }
  });
});

describe('restart', () => {
  it('rebuilds the actual state from disk and mountinfo, remounting nothing; teardown still works', async () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 'db', { password: 'p1' });
    source.setConfigMap('default', 'cfg', { a: '1' });
    const pod = newPod({
      uid: 'uid-k',
      spec: {
        volumes: [
          { name: 'mem', emptyDir: { medium: 'Memory' } },
          { name: 'disk', emptyDir: {} },
          { name: 'creds', secret: { secretName: 'db' } },
          { name: 'cfg', configMap: { name: 'cfg' } },
        ],
      },
    });
    const first = createVolumeManager({ rootDir: root, sources: source, waitTimeoutMs: 0 });
    await first.waitForAttachAndMount(pod);
    await writeFile(join(volDir('uid-k', 'empty-dir', 'mem'), 'state'), 'in memory');
    const mountsBefore = await mountsUnder(join(root, 'pods'));
    expect(mountsBefore).toHaveLength(2);

    // "Restart": a new manager on the same root dir.
    const mounter = recordingMounter(createSystemMounter());
    const second = createVolumeManager({ rootDir: root, sources: source, mounter, waitTimeoutMs: 0 });
    await second.reconstruct();
    expect(second.getReconstructedPodUIDs()).toEqual(['uid-k']);
    expect(
      second
        .getMountedVolumes('uid-k')
        .map((v) => [v.volumeName, v.pluginName, v.reconstructed])
        .sort(),
    ).toEqual([
      ['cfg', 'kubernetes.io/configmap', true],
      ['creds', 'kubernetes.io/secret', true],
      ['disk', 'kubernetes.io/empty-dir', true],
      ['mem', 'kubernetes.io/empty-dir', true],
    ]);

    source.setSecret('default', 'db', { password: 'p2' });
    await second.waitForAttachAndMount(pod);
    expect(mounter.calls).toEqual([]);
    expect(await mountsUnder(join(root, 'pods'))).toHaveLength(2);
    expect(await readFile(join(volDir('uid-k', 'empty-dir', 'mem'), 'state'), 'utf8')).toBe('in memory');
    // Content volumes are re-synced on the first sync after the restart, in place.
    expect(await readFile(join(volDir('uid-k', 'secret', 'creds'), 'password'), 'utf8')).toBe('p2');
    expect(second.getMountedVolumes('uid-k').every((v) => !v.reconstructed)).toBe(true);
    expect(second.getReconstructedPodUIDs()).toEqual([]);

    await second.teardownPod('uid-k');
    expect(await mountsUnder(join(root, 'pods'))).toHaveLength(0);
  });

  it('tears down a pod known only from disk (deleted while the kubelet was down)', async () => {
    const first = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
    await first.waitForAttachAndMount(newPod({ uid: 'uid-o', spec: { volumes: [{ name: 'mem', emptyDir: { medium: 'Memory' } }] } }));
    const second = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
    await second.reconstruct();
    expect(second.getReconstructedPodUIDs()).toEqual(['uid-o']);
    await second.teardownPod('uid-o');
    expect(await mountsUnder(join(root, 'pods'))).toHaveLength(0);
    expect(second.getReconstructedPodUIDs()).toEqual([]);
  });
});

describe('run (reconciler loop)', () => {
  it('re-syncs configMap content into running pods atomically every resync period', async () => {
    const clock = new FakeClock();
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { 'app.conf': 'v1' });
    const vm = createVolumeManager({
      rootDir: root,
      sources: source,
      clock,
      waitTimeoutMs: 0,
      resyncPeriodMs: 10_000,
      reconcilePeriodMs: 1_000,
    });
    const pod = newPod({ uid: 'uid-s', spec: { volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] } });
    await vm.waitForAttachAndMount(pod);
    const file = join(volDir('uid-s', 'configmap', 'cfg'), 'app.conf');
    const controller = new AbortController();
    const running = vm.run(controller.signal);
    try {
      source.setConfigMap('default', 'cfg', { 'app.conf': 'v2' });
      await clock.advance(5_000);
      await settle();
      expect(await readFile(file, 'utf8')).toBe('v1');
      await clock.advance(5_000);
      await until(async () => (await readFile(file, 'utf8')) === 'v2', 'the re-synced content');
    } finally {
      controller.abort();
      await running;
    }
  });

  it('keeps the last content when the object disappears, without holding the running pod back', async () => {
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { k: 'v1' });
    const clock = new FakeClock();
    const vm = createVolumeManager({ rootDir: root, sources: source, clock, waitTimeoutMs: 0, resyncPeriodMs: 1_000 });
    const pod = newPod({ uid: 'uid-g', spec: { volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] } });
    await vm.waitForAttachAndMount(pod);
    source.delete('ConfigMap', 'default', 'cfg');
    await clock.advance(1_000);
    await vm.waitForAttachAndMount(pod);
    expect(source.calls.filter((c) => c.name === 'cfg')).toHaveLength(2);
    expect(await readFile(join(volDir('uid-g', 'configmap', 'cfg'), 'k'), 'utf8')).toBe('v1');
  });
});

it('getMountsForContainer maps mountPropagation and refuses unknown volumes', async () => {
  await mkdir(join(tmp.path, 'h'));
  const vm = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
  const pod = newPod({
    uid: 'uid-p',
    spec: { volumes: [{ name: 'h', hostPath: { path: join(tmp.path, 'h') } }] },
    containers: [
      {
        name: 'app',
        volumeMounts: [
          { name: 'h', mountPath: '/a', mountPropagation: 'None' },
          { name: 'h', mountPath: '/b', mountPropagation: 'Bidirectional', readOnly: true },
        ],
      },
      { name: 'bad', volumeMounts: [{ name: 'nope', mountPath: '/x' }] },
    ],
  });
  await vm.waitForAttachAndMount(pod);
  expect((await vm.getMountsForContainer(pod, pod.spec.containers[0]!)).map((m) => [m.propagation, m.readOnly])).toEqual([
    ['private', false],
    ['bidirectional', true],
  ]);
  await expect(vm.getMountsForContainer(pod, pod.spec.containers[1]!)).rejects.toThrow(
    'cannot find volume "nope" to mount into container "bad"',
  );
});
