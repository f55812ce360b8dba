import { mkdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import type { Volume } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { makeTempDir, mountsUnder } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { FakeObjectSource, FakeTokenSource } from './testing/index.js';
import { createVolumeManager } from './volume-manager.js';
import type { VolumeManagerOptions } from './volume-manager.js';

let tmp: TempDir;
let root: string;
let host: string;
beforeEach(async () => {
  tmp = await makeTempDir('vm-plugins-');
  root = join(tmp.path, 'root');
  host = join(tmp.path, 'host');
  await mkdir(host, { recursive: true });
});
afterEach(async () => {
  await tmp.cleanup();
});

const podWith = (volumes: Volume[], extra: Parameters<typeof newPod>[0] = {}) =>
  newPod({
    name: 'web',
    uid: 'uid-1',
    labels: { app: 'web', tier: 'front' },
    annotations: { note: 'a "quoted" value' },
    spec: { volumes },
    ...extra,
  });

const manager = (options: Partial<VolumeManagerOptions> = {}) =>
  createVolumeManager({
    rootDir: root,
    waitTimeoutMs: 0,
    getNodeAllocatable: () => ({ cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3 }),
    ...options,
  });

const volDir = (plugin: string, name: string) => join(root, 'pods', 'uid-1', 'volumes', `kubernetes.io~${plugin}`, name);

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as Error & { code?: string },
  );
}

describe('emptyDir', () => {
  it('on disk: a world-writable dir at the upstream path, removed on teardown', async () => {
    const vm = manager();
    const pod = podWith([{ name: 'cache', emptyDir: {} }]);
    await vm.waitForAttachAndMount(pod);
    const info = await stat(volDir('empty-dir', 'cache'));
    expect(info.isDirectory()).toBe(true);
    expect(info.mode & 0o777).toBe(0o777);
    await vm.teardownPod('uid-1');
    await expect(stat(volDir('empty-dir', 'cache'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('medium Memory: a real tmpfs sized by sizeLimit, mounted once however often it is set up, unmounted on teardown', async () => {
    const vm = manager();
    const pod = podWith([{ name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '2Mi' } }]);
    await vm.waitForAttachAndMount(pod);
    await vm.waitForAttachAndMount(pod);
    const mounts = await mountsUnder(volDir('empty-dir', 'mem'));
    expect(mounts).toHaveLength(1);
    expect(mounts[0]?.fsType).toBe('tmpfs');
    expect(mounts[0]?.superOptions).toContain('size=2048k');
    // The size limit is enforced by the kernel.
    await expect(writeFile(join(volDir('empty-dir', 'mem'), 'big'), Buffer.alloc(3 * 1024 * 1024))).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    await vm.teardownPod('uid-1');
    expect(await mountsUnder(volDir('empty-dir', 'mem'))).toHaveLength(0);
    await expect(stat(volDir('empty-dir', 'mem'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('medium Memory without sizeLimit: the tmpfs is sized to the pod memory limit (all containers limited), else node allocatable', async () => {
    const vm = manager({ getNodeAllocatable: () => ({ cpuMilli: 1000, memoryBytes: 64 * 1024 * 1024 }) });
    const limited = podWith([{ name: 'mem', emptyDir: { medium: 'Memory' } }], {
      containers: [
        { name: 'a', resources: { limits: { memory: '2Mi' } } },
        { name: 'b', resources: { limits: { memory: '1Mi' } } },
      ],
    });
    await vm.waitForAttachAndMount(limited);
    expect((await mountsUnder(volDir('empty-dir', 'mem')))[0]?.superOptions).toContain('size=3072k');
    const unlimited = podWith([{ name: 'mem', emptyDir: { medium: 'Memory' } }], {
      uid: 'uid-2',
      containers: [{ name: 'a', resources: { limits: { memory: '2Mi' } } }, { name: 'b' }],
    });
    await vm.waitForAttachAndMount(unlimited);
    const dir = join(root, 'pods', 'uid-2', 'volumes', 'kubernetes.io~empty-dir', 'mem');
    expect((await mountsUnder(dir))[0]?.superOptions).toContain('size=65536k');
  });

  it('medium Memory with no memory left for pods: sized to the machine, never size=0 (an unbounded tmpfs)', async () => {
    const vm = manager({ getNodeAllocatable: () => ({ cpuMilli: 1000, memoryBytes: 0 }) });
    await vm.waitForAttachAndMount(podWith([{ name: 'mem', emptyDir: { medium: 'Memory' } }]));
    // tmpfs rounds the size up to whole pages and shows it in KiB.
    expect((await mountsUnder(volDir('empty-dir', 'mem')))[0]?.superOptions).toContain(`size=${Math.ceil(os.totalmem() / 4096) * 4}k`);
  });

  it('reports disk usage against sizeLimit for eviction', async () => {
    const vm = manager();
    const pod = podWith([
      { name: 'small', emptyDir: { sizeLimit: '64Ki' } },
      { name: 'free', emptyDir: {} },
    ]);
    await vm.waitForAttachAndMount(pod);
    await writeFile(join(volDir('empty-dir', 'small'), 'data'), Buffer.alloc(256 * 1024, 1));
    const usage = await vm.getVolumeUsage('uid-1');
    const small = usage.find((u) => u.volumeName === 'small');
    expect(small).toMatchObject({ pluginName: 'kubernetes.io/empty-dir', limitBytes: 65536, exceeded: true });
    expect(small?.usedBytes).toBeGreaterThanOrEqual(256 * 1024);
    expect(usage.find((u) => u.volumeName === 'free')).toMatchObject({ exceeded: false });
    expect(usage.find((u) => u.volumeName === 'free')?.limitBytes).toBeUndefined();
  });
});

describe('fsGroup ownership (upstream SetVolumeOwnership)', () => {
  it('an emptyDir is given to the group, setgid, group read-write on what it holds', async () => {
    const vm = manager();
    const pod = podWith([{ name: 'cache', emptyDir: {} }], {
      spec: { volumes: [{ name: 'cache', emptyDir: {} }], securityContext: { fsGroup: 1234 } },
    });
    await vm.waitForAttachAndMount(pod);
    const info = await stat(volDir('empty-dir', 'cache'));
    expect(info.gid).toBe(1234);
    expect(info.mode & 0o7777).toBe(0o2777);
  });

  it('a secret volume: files in the group with group read added (0400 → 0440), directories setgid, kept on resync', async () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 'creds', { token: 'abc' });
    const vm = manager({ sources: source });
    const volumes: Volume[] = [{ name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } }];
    const pod = podWith(volumes, { spec: { volumes, securityContext: { fsGroup: 1001, runAsUser: 1000 } } });
    await vm.waitForAttachAndMount(pod);
    const dir = volDir('secret', 'creds');
    const file = await stat(join(dir, 'token'));
    expect(file.gid).toBe(1001);
    expect(file.mode & 0o7777).toBe(0o440);
    const generation = await stat(join(dir, await readlink(join(dir, '..data'))));
    expect(generation.gid).toBe(1001);
    expect(generation.mode & 0o2000).toBe(0o2000);
    expect((await stat(dir)).gid).toBe(1001);
    // Unchanged content: the same generation stays (the raised modes are the payload's own).
    const before = await readlink(join(dir, '..data'));
    await vm.waitForAttachAndMount(pod);
    expect(await readlink(join(dir, '..data'))).toBe(before);
  });

  it('without fsGroup nothing changes group', async () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 'creds', { token: 'abc' });
    const vm = manager({ sources: source });
    const pod = podWith([{ name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } }]);
    await vm.waitForAttachAndMount(pod);
    const file = await stat(join(volDir('secret', 'creds'), 'token'));
    expect(file.gid).toBe(0);
    expect(file.mode & 0o7777).toBe(0o400);
  });
});

describe('hostPath', () => {
  const failure = async (path: string, type: string) => {
    const err = await rejection(manager().waitForAttachAndMount(podWith([{ name: 'h', hostPath: { path, type } }])));
    return err.message;
  };

  it('creates for DirectoryOrCreate (0755) and FileOrCreate (0644)', async () => {
    const vm = manager();
    await vm.waitForAttachAndMount(
      podWith([
        { name: 'd', hostPath: { path: join(host, 'new/dir'), type: 'DirectoryOrCreate' } },
        { name: 'f', hostPath: { path: join(host, 'new-file'), type: 'FileOrCreate' } },
      ]),
    );
    expect((await stat(join(host, 'new/dir'))).mode & 0o777).toBe(0o755);
    const file = await stat(join(host, 'new-file'));
    expect(file.isFile()).toBe(true);
    expect(file.mode & 0o777).toBe(0o644);
  });

  it('checks every type with the upstream messages', async () => {
    await writeFile(join(host, 'file'), 'x');
    const socketPath = join(host, 'sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      await manager().waitForAttachAndMount(
        podWith([
          { name: 'a', hostPath: { path: host, type: 'Directory' } },
          { name: 'b', hostPath: { path: join(host, 'file'), type: 'File' } },
          { name: 'c', hostPath: { path: socketPath, type: 'Socket' } },
          { name: 'd', hostPath: { path: '/dev/null', type: 'CharDevice' } },
          { name: 'e', hostPath: { path: join(host, 'anything-missing'), type: '' } },
        ]),
      );
      expect(await failure(join(host, 'file'), 'Directory')).toBe(
        `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${join(host, 'file')} is not a directory`,
      );
      expect(await failure(join(host, 'file'), 'DirectoryOrCreate')).toContain('is not a directory');
      expect(await failure(host, 'File')).toContain(`hostPath type check failed: ${host} is not a file`);
      expect(await failure(host, 'FileOrCreate')).toContain('is not a file');
      expect(await failure(join(host, 'file'), 'Socket')).toContain('is not a socket file');
      expect(await failure(join(host, 'file'), 'CharDevice')).toContain('is not a character device');
      expect(await failure('/dev/null', 'BlockDevice')).toContain('is not a block device');
      expect(await failure(join(host, 'missing'), 'Directory')).toContain(
        `hostPath type check failed: ${join(host, 'missing')} is not a directory`,
      );
      expect(await failure(join(host, 'missing'), 'Socket')).toContain('is not a socket file');
      expect(await failure(host, 'Weird')).toContain('Weird is an invalid volume type');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('mounts the host path itself and leaves it on teardown', async () => {
    const vm = manager();
    const pod = podWith([{ name: 'h', hostPath: { path: host } }], {
      containers: [{ name: 'app', volumeMounts: [{ name: 'h', mountPath: '/host', mountPropagation: 'HostToContainer' }] }],
    });
    await vm.waitForAttachAndMount(pod);
    expect(await vm.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([
      { containerPath: '/host', hostPath: host, readOnly: false, propagation: 'host-to-container' },
    ]);
    await vm.teardownPod('uid-1');
    expect((await stat(host)).isDirectory()).toBe(true);
  });
});

describe('configMap and secret', () => {
  it('writes all keys (data and binaryData) with defaultMode, through ..data links', async () => {
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { 'app.conf': 'port=80' }, { 'blob.bin': Buffer.from([0, 1, 2]) });
    const vm = manager({ sources: source });
    const pod = podWith([{ name: 'config', configMap: { name: 'cfg', defaultMode: 0o640 } }], {
      containers: [{ name: 'app', volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] }],
    });
    await vm.waitForAttachAndMount(pod);
    const dir = volDir('configmap', 'config');
    expect(await readFile(join(dir, 'app.conf'), 'utf8')).toBe('port=80');
    expect([...(await readFile(join(dir, 'blob.bin')))]).toEqual([0, 1, 2]);
    expect(await readlink(join(dir, 'app.conf'))).toBe('..data/app.conf');
    expect((await stat(join(dir, 'app.conf'))).mode & 0o777).toBe(0o640);
    // API data volumes are always mounted read-only into containers.
    expect(await vm.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([
      { containerPath: '/etc/app', hostPath: dir, readOnly: true },
    ]);
  });

  it('volume roots any container user can enter, as upstream: 0777 on disk (configMap), 1777 on tmpfs (secret)', async () => {
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { a: '1' });
    source.setSecret('default', 'creds', { b: '2' });
    const vm = manager({ sources: source });
    const pod = podWith([
      { name: 'config', configMap: { name: 'cfg', items: [{ key: 'a', path: 'path/to/a' }] } },
      { name: 'creds', secret: { secretName: 'creds' } },
    ]);
    await vm.waitForAttachAndMount(pod);
    expect((await stat(volDir('configmap', 'config'))).mode & 0o7777).toBe(0o777);
    expect((await stat(volDir('secret', 'creds'))).mode & 0o7777).toBe(0o1777);
    // Nested item directories are world-traversable too.
    expect((await stat(join(volDir('configmap', 'config'), 'path', 'to'))).mode & 0o777).toBe(0o755);
  });

  it('writes only the listed items at their paths and modes; a missing key fails unless optional', async () => {
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'cfg', { a: '1', b: '2' });
    const vm = manager({ sources: source });
    await vm.waitForAttachAndMount(
      podWith([{ name: 'config', configMap: { name: 'cfg', items: [{ key: 'a', path: 'nested/one', mode: 0o600 }] } }]),
    );
    const dir = volDir('configmap', 'config');
    expect(await readFile(join(dir, 'nested/one'), 'utf8')).toBe('1');
    expect((await stat(join(dir, 'nested/one'))).mode & 0o777).toBe(0o600);
    await expect(stat(join(dir, 'b'))).rejects.toMatchObject({ code: 'ENOENT' });

    const missingKey = await rejection(
      manager({ sources: source }).waitForAttachAndMount(
        podWith([{ name: 'x', configMap: { name: 'cfg', items: [{ key: 'zzz', path: 'z' }] } }], { uid: 'uid-2' }),
      ),
    );
    expect(missingKey.message).toBe('MountVolume.SetUp failed for volume "x" : configmap references non-existent config key: zzz');
    await manager({ sources: source }).waitForAttachAndMount(
      podWith([{ name: 'x', configMap: { name: 'cfg', optional: true, items: [{ key: 'zzz', path: 'z' }] } }], { uid: 'uid-3' }),
    );
  });

  it('a missing configMap or secret fails SetUp with the FailedMount message; optional ones give an empty volume', async () => {
    const vm = manager({ sources: new FakeObjectSource() });
    const err = await rejection(vm.waitForAttachAndMount(podWith([{ name: 'creds', secret: { secretName: 'db' } }])));
    expect(err).toMatchObject({ name: 'VolumeError', code: 'SETUP_FAILED' });
    expect(err.message).toBe('MountVolume.SetUp failed for volume "creds" : secret "db" not found');
    const cm = await rejection(vm.waitForAttachAndMount(podWith([{ name: 'c', configMap: { name: 'nope' } }], { uid: 'uid-2' })));
    expect(cm.message).toBe('MountVolume.SetUp failed for volume "c" : configmap "nope" not found');
    await vm.waitForAttachAndMount(podWith([{ name: 'c', configMap: { name: 'nope', optional: true } }], { uid: 'uid-3' }));
  });

  it('refuses item paths that escape the volume', async () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 's', { k: 'v' });
    const err = await rejection(
      manager({ sources: source }).waitForAttachAndMount(
        podWith([{ name: 's', secret: { secretName: 's', items: [{ key: 'k', path: '../../etc/evil' }] } }]),
      ),
    );
    expect(err.message).toContain('invalid path "../../etc/evil": must not contain \'..\'');
    const abs = await rejection(
      manager({ sources: source }).waitForAttachAndMount(
        podWith([{ name: 's', secret: { secretName: 's', items: [{ key: 'k', path: '/etc/evil' }] } }], { uid: 'uid-2' }),
      ),
    );
    expect(abs.message).toContain('must be relative path');
  });

  it('secrets live on a tmpfs, never on disk', async () => {
    const source = new FakeObjectSource();
    source.setSecret('default', 'db', { password: 's3cret' });
    const vm = manager({ sources: source });
    await vm.waitForAttachAndMount(podWith([{ name: 'creds', secret: { secretName: 'db' } }]));
    const dir = volDir('secret', 'creds');
    expect(await readFile(join(dir, 'password'), 'utf8')).toBe('s3cret');
    const mounts = await mountsUnder(dir);
    expect(mounts.map((m) => m.fsType)).toEqual(['tmpfs']);
    await vm.teardownPod('uid-1');
    expect(await mountsUnder(dir)).toHaveLength(0);
  });
});

describe('downwardAPI and projected', () => {
  it('writes fieldRefs (name, namespace, uid, labels, annotations) and resourceFieldRefs with divisors', async () => {
    const vm = manager();
    const pod = podWith(
      [
        {
          name: 'info',
          downwardAPI: {
            items: [
              { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
              { path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } },
              { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
              { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
              { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
              { path: 'cpu_limit', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
              { path: 'cpu_request', resourceFieldRef: { containerName: 'app', resource: 'requests.cpu' } },
              { path: 'mem_limit', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
              { path: 'mem_default', resourceFieldRef: { containerName: 'side', resource: 'limits.memory', divisor: '1Gi' } },
            ],
          },
        },
      ],
      {
        containers: [
          { name: 'app', resources: { limits: { cpu: '250m', memory: '64Mi' }, requests: { cpu: '100m', memory: '64Mi' } } },
          { name: 'side' },
        ],
      },
    );
    await vm.waitForAttachAndMount(pod);
    const read = (f: string) => readFile(join(volDir('downward-api', 'info'), f), 'utf8');
    expect(await read('name')).toBe('web');
    expect(await read('ns')).toBe('default');
    expect(await read('uid')).toBe('uid-1');
    expect(await read('labels')).toBe('app="web"\ntier="front"');
    expect(await read('annotations')).toBe('note="a \\"quoted\\" value"');
    expect(await read('cpu_limit')).toBe('250');
    expect(await read('cpu_request')).toBe('1'); // ceil(100m / 1)
    expect(await read('mem_limit')).toBe('64');
    expect(await read('mem_default')).toBe('8'); // no limit: node allocatable (8Gi)
  });

  it('computes resourceFieldRefs as the env does (hugepages too) and refuses a resource it does not know', async () => {
    const vm = manager();
    const file = (resource: string) => ({ path: 'value', resourceFieldRef: { containerName: 'app', resource, divisor: '1Mi' } });
    const pod = (uid: string, resource: string) =>
      podWith([{ name: 'info', downwardAPI: { items: [file(resource)] } }], {
        uid,
        containers: [{ name: 'app', resources: { limits: { 'hugepages-2Mi': '4Mi' } } }],
      });
    await vm.waitForAttachAndMount(pod('uid-1', 'limits.hugepages-2Mi'));
    expect(await readFile(join(volDir('downward-api', 'info'), 'value'), 'utf8')).toBe('4');
    const err = await rejection(vm.waitForAttachAndMount(pod('uid-2', 'limits.gpu')));
    expect(err.message).toContain('unsupported container resource: limits.gpu');
  });

  it('reads node allocatable at each set-up for limits a container does not set: cpu in millicores, memory in bytes', async () => {
    let allocatable = { cpuMilli: 1500, memoryBytes: 3 * 1024 ** 2 };
    const vm = manager({ getNodeAllocatable: () => allocatable });
    const pod = podWith([
      {
        name: 'info',
        downwardAPI: {
          items: [
            { path: 'cpu_milli', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
            { path: 'cpu_cores', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' } },
            { path: 'mem_mi', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
            { path: 'storage', resourceFieldRef: { containerName: 'app', resource: 'limits.ephemeral-storage' } },
          ],
        },
      },
    ]);
    const read = (f: string) => readFile(join(volDir('downward-api', 'info'), f), 'utf8');
    await vm.waitForAttachAndMount(pod);
    // 1500 millicores: 1500 in 1m and 2 cores rounded up (not 1500 cores, not 1.5m).
    expect([await read('cpu_milli'), await read('cpu_cores'), await read('mem_mi'), await read('storage')]).toEqual([
      '1500',
      '2',
      '3',
      '0',
    ]);
    allocatable = { cpuMilli: 2500, memoryBytes: 5 * 1024 ** 2 };
    await vm.waitForAttachAndMount(pod);
    expect([await read('cpu_milli'), await read('cpu_cores'), await read('mem_mi')]).toEqual(['2500', '3', '5']);
  });

  it('projects configMap, secret, downwardAPI and a service account token into one tmpfs volume', async () => {
    const source = new FakeObjectSource();
    source.setConfigMap('default', 'ca', { 'ca.crt': 'CERT' });
    source.setSecret('default', 'creds', { user: 'admin' });
    const tokens = new FakeTokenSource();
    tokens.next = 'jwt-abc';
    const vm = manager({ sources: source, tokenSource: tokens });
    await vm.waitForAttachAndMount(
      podWith([
        {
          name: 'kube-api-access',
          projected: {
            sources: [
              { serviceAccountToken: { path: 'token', expirationSeconds: 3607, audience: 'api' } },
              { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { secret: { name: 'creds' } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ]),
    );
    const dir = volDir('projected', 'kube-api-access');
    expect(await readFile(join(dir, 'token'), 'utf8')).toBe('jwt-abc');
    expect(await readFile(join(dir, 'ca.crt'), 'utf8')).toBe('CERT');
    expect(await readFile(join(dir, 'user'), 'utf8')).toBe('admin');
    expect(await readFile(join(dir, 'namespace'), 'utf8')).toBe('default');
    expect(tokens.calls).toEqual([{ podUID: 'uid-1', request: { audience: 'api', expirationSeconds: 3607 } }]);
    expect((await mountsUnder(dir)).map((m) => m.fsType)).toEqual(['tmpfs']);
  });

  it('refuses an unsupported projection and a projection path escape', async () => {
    const err = await rejection(
      manager().waitForAttachAndMount(podWith([{ name: 'p', projected: { sources: [{ clusterTrustBundle: { path: 'x' } }] } }])),
    );
    expect(err.message).toContain('unsupported projection');
    const esc = await rejection(
      manager({ tokenSource: new FakeTokenSource() }).waitForAttachAndMount(
        podWith([{ name: 'p', projected: { sources: [{ serviceAccountToken: { path: '../token' } }] } }], { uid: 'uid-2' }),
      ),
    );
    expect(esc.message).toContain("must not contain '..'");
  });
});

it('an unsupported volume type fails SetUp with its name', async () => {
  const err = await rejection(manager().waitForAttachAndMount(podWith([{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }])));
  expect(err.message).toBe('MountVolume.SetUp failed for volume "data" : volume type persistentVolumeClaim is not supported');
});
