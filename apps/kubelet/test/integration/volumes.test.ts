/**
 * Issue "volume-manager", kubelet part: pod volumes through the real kubelet on the real containerd.
 * emptyDir shared between containers, a `medium: Memory` emptyDir on tmpfs, hostPath
 * DirectoryOrCreate, downwardAPI files, a subPath symlink escape refused, nothing remounted after a
 * kubelet restart, everything unmounted and removed when the pod goes (also when it went while
 * the kubelet was down). configMap and secret volumes from `--static-object-dir` manifests: an
 * edited ConfigMap reaches the container atomically (a reader never sees a mix), the secret is on tmpfs.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  BUSYBOX,
  busyboxPod,
  containerState,
  createKubelet,
  criContainersOf,
  criSandboxesOf,
  eventually,
  waitHealthy,
  mountsUnder,
  unmountAllUnder,
} from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;
let objectDir = '';
// configMap/secret contents follow their manifests within a sync period: keep it short here.
const kubeletArgs = (): string[] => [`--static-object-dir=${objectDir}`, '--sync-frequency=3s'];

beforeAll(async () => {
  kubelet = await createKubelet('volumes');
  objectDir = path.join(kubelet.hostDir, 'objects');
  await fs.mkdir(objectDir, { recursive: true });
  await kubelet.start(kubeletArgs());
  await waitHealthy(kubelet);
});

afterAll(async () => {
  // Never leave a mount behind (nor let the recursive removal of the temp dir walk through one).
  await kubelet.stop();
  await unmountAllUnder(kubelet.rootDir);
  await kubelet.cleanup();
});

const podDir = (uid: string): string => path.join(kubelet.rootDir, 'pods', uid);
const exists = (p: string): Promise<boolean> =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

async function uidOf(name: string): Promise<string> {
  return eventually(`uid of ${name}`, async () => (await kubelet.pod(name))?.metadata.uid, 30_000);
}

async function runningContainerIDs(name: string): Promise<string[]> {
  return (await criContainersOf(kubelet, name))
    .filter((c) => c.state === 'CONTAINER_RUNNING')
    .map((c) => c.id)
    .sort();
}

const fullName = (name: string): string => `${name}-${kubelet.nodeName}`;

/** `id mountPoint fsType` of every mount under the pod's dir, for before/after comparisons. */
async function mountTable(uid: string): Promise<string[]> {
  return (await mountsUnder(podDir(uid))).map((m) => `${m.id} ${m.mountPoint} ${m.fsType}`).sort();
}

let volsUID = '';

test('emptyDir shared by two containers, tmpfs for medium Memory, hostPath DirectoryOrCreate, downwardAPI files', async () => {
  const out = path.join(kubelet.hostDir, 'vols-out');
  const created = path.join(kubelet.hostDir, 'created', 'deep');
  expect(await exists(created)).toBe(false);
  const reader = [
    'until [ -f /shared/msg ]; do sleep 1; done',
    'cat /shared/msg > /out/read',
    'grep " /cache " /proc/mounts > /out/cache-mounts',
    'cat /podinfo/name > /out/name',
    'cat /podinfo/labels > /out/labels',
    'echo from-container > /host-created/file',
    'touch /out/done',
    'exec sleep 3600',
  ].join('\n');
  await kubelet.writeManifest('vols.yaml', {
    ...busyboxPod(
      'vols',
      [
        {
          name: 'writer',
          command: [
            'sh',
            '-c',
            'echo kept > /cache/keep; echo hello-from-writer > /shared/msg.tmp && mv /shared/msg.tmp /shared/msg; exec sleep 3600',
          ],
          volumeMounts: [
            { name: 'shared', mountPath: '/shared' },
            { name: 'cache', mountPath: '/cache' },
          ],
        },
        {
          name: 'reader',
          command: ['sh', '-c', reader],
          volumeMounts: [
            { name: 'shared', mountPath: '/shared' },
            { name: 'cache', mountPath: '/cache' },
            { name: 'podinfo', mountPath: '/podinfo' },
            { name: 'created', mountPath: '/host-created' },
            { name: 'out', mountPath: '/out' },
          ],
        },
      ],
      {
        volumes: [
          { name: 'shared', emptyDir: {} },
          { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
          { name: 'created', hostPath: { path: created, type: 'DirectoryOrCreate' } },
          { name: 'out', hostPath: { path: out, type: 'DirectoryOrCreate' } },
          {
            name: 'podinfo',
            downwardAPI: {
              items: [
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
              ],
            },
          },
        ],
      },
    ),
    metadata: { name: 'vols', labels: { app: 'vols', tier: 'test' } },
  });
  volsUID = await uidOf('vols');
  await eventually('the reader container reported', () => exists(path.join(out, 'done')), 60_000);

  // One container wrote, the other read through the shared emptyDir.
  expect((await fs.readFile(path.join(out, 'read'), 'utf8')).trim()).toBe('hello-from-writer');
  const emptyDir = path.join(podDir(volsUID), 'volumes', 'kubernetes.io~empty-dir');
  expect((await fs.readFile(path.join(emptyDir, 'shared', 'msg'), 'utf8')).trim()).toBe('hello-from-writer');
  // medium: Memory is a tmpfs inside the container, and on the host at the pod's volume dir, sized by sizeLimit.
  expect(await fs.readFile(path.join(out, 'cache-mounts'), 'utf8')).toMatch(/ \/cache tmpfs /);
  const cacheMount = (await mountsUnder(podDir(volsUID))).find((m) => m.mountPoint === path.join(emptyDir, 'cache'));
  expect(cacheMount?.fsType).toBe('tmpfs');
  expect(cacheMount?.superOptions).toContain('size=16384k');
  expect((await fs.readFile(path.join(emptyDir, 'cache', 'keep'), 'utf8')).trim()).toBe('kept');
  // The disk-backed emptyDir is not a mount at all.
  expect((await mountsUnder(path.join(emptyDir, 'shared'))).length).toBe(0);
  // hostPath DirectoryOrCreate made the directory on the host, and the container wrote into it.
  expect((await fs.stat(created)).isDirectory()).toBe(true);
  expect((await fs.readFile(path.join(created, 'file'), 'utf8')).trim()).toBe('from-container');
  // downwardAPI: the pod's name and labels (upstream format: key="value" lines, sorted).
  expect((await fs.readFile(path.join(out, 'name'), 'utf8')).trim()).toBe(fullName('vols'));
  expect((await fs.readFile(path.join(out, 'labels'), 'utf8')).split('\n')).toEqual(expect.arrayContaining(['app="vols"', 'tier="test"']));
  await eventually('vols Running in /pods', async () => (await kubelet.pod('vols'))?.status?.phase === 'Running', 30_000);
});

test('a subPath symlink planted to point outside the volume is refused: the container does not start and the status says why', async () => {
  const secretDir = path.join(kubelet.hostDir, 'outside');
  await fs.mkdir(secretDir, { recursive: true });
  await fs.writeFile(path.join(secretDir, 'secret'), 'top-secret\n');
  const out = path.join(kubelet.hostDir, 'escape-out');
  await kubelet.writeManifest(
    'escape.yaml',
    busyboxPod(
      'escape',
      [
        {
          name: 'main',
          command: ['sh', '-c', `cat /escaped${secretDir}/secret > /out/leaked; exec sleep 3600`],
          volumeMounts: [
            { name: 'vol', mountPath: '/escaped', subPath: 'escape' },
            { name: 'out', mountPath: '/out' },
          ],
        },
      ],
      {
        initContainers: [
          {
            name: 'plant',
            image: BUSYBOX(),
            command: ['sh', '-c', 'ln -s / /vol/escape'],
            volumeMounts: [{ name: 'vol', mountPath: '/vol' }],
          },
        ],
        volumes: [
          { name: 'vol', emptyDir: {} },
          { name: 'out', hostPath: { path: out, type: 'DirectoryOrCreate' } },
        ],
      },
    ),
  );
  const uid = await uidOf('escape');
  const waiting = await eventually(
    'main waiting with CreateContainerConfigError',
    async () => {
      const state = containerState(await kubelet.pod('escape'), 'main')?.state?.waiting;
      return state?.reason === 'CreateContainerConfigError' ? state : undefined;
    },
    60_000,
  );
  expect(waiting.message).toMatch(/subpath "escape" not within volume path/);
  const pod = await kubelet.pod('escape');
  expect(pod?.status?.phase).toBe('Pending');
  expect(pod?.status?.initContainerStatuses?.find((c) => c.name === 'plant')?.state?.terminated?.exitCode).toBe(0);
  // The symlink was planted, yet nothing was bind-mounted and no main container was ever created.
  expect(await fs.readlink(path.join(podDir(uid), 'volumes', 'kubernetes.io~empty-dir', 'vol', 'escape'))).toBe('/');
  expect(await mountsUnder(path.join(podDir(uid), 'volume-subpaths'))).toEqual([]);
  const mains = (await criContainersOf(kubelet, 'escape')).filter((c) => c.metadata?.name === 'main');
  expect(mains).toEqual([]);
  expect(await exists(path.join(out, 'leaked'))).toBe(false);
});

test('after a kubelet restart nothing is remounted and the containers keep running', async () => {
  expect(volsUID).not.toBe('');
  const mountsBefore = await mountTable(volsUID);
  expect(mountsBefore.some((m) => m.endsWith('/cache tmpfs'))).toBe(true);
  const containersBefore = await runningContainerIDs('vols');
  expect(containersBefore).toHaveLength(2);

  await kubelet.stop();
  const offset = kubelet.output().length;
  await kubelet.start(kubeletArgs());
  await waitHealthy(kubelet);
  // The restarted kubelet synced the pod (so its volumes went through waitForAttachAndMount again)…
  await eventually(
    'a sync of vols after the restart',
    async () =>
      kubelet
        .output()
        .slice(offset)
        .split('\n')
        .some((line) => line.includes('"SyncPod enter"') && line.includes(fullName('vols'))),
    30_000,
  );
  await eventually('vols Running in /pods', async () => (await kubelet.pod('vols'))?.status?.phase === 'Running', 30_000);
  // …and a few housekeeping passes and reconciler ticks later, nothing changed.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  expect(await mountTable(volsUID)).toEqual(mountsBefore);
  expect(await runningContainerIDs('vols')).toEqual(containersBefore);
  for (const name of ['writer', 'reader']) expect(containerState(await kubelet.pod('vols'), name)?.restartCount).toBe(0);
  // The tmpfs still holds what the writer put there (a new mount would be empty).
  expect((await fs.readFile(path.join(podDir(volsUID), 'volumes', 'kubernetes.io~empty-dir', 'cache', 'keep'), 'utf8')).trim()).toBe(
    'kept',
  );
});

test('deleting a pod unmounts and removes everything it had; hostPath content stays', async () => {
  expect(volsUID).not.toBe('');
  const escapeUID = await uidOf('escape');
  await kubelet.removeManifest('vols.yaml');
  await kubelet.removeManifest('escape.yaml');
  for (const [name, uid] of [
    ['vols', volsUID],
    ['escape', escapeUID],
  ] as const) {
    await eventually(`${name}: pod dir removed`, async () => !(await exists(podDir(uid))), 60_000);
    expect(await mountsUnder(podDir(uid))).toEqual([]);
    expect(await runningContainerIDs(name)).toEqual([]);
  }
  expect((await fs.readFile(path.join(kubelet.hostDir, 'created', 'deep', 'file'), 'utf8')).trim()).toBe('from-container');
});

test('volumes of a pod removed while the kubelet was down are torn down once the sources are seen', async () => {
  await kubelet.writeManifest(
    'orphan.yaml',
    busyboxPod(
      'orphan',
      [
        {
          name: 'c',
          command: ['sh', '-c', 'mkdir -p /scratch/sub; exec sleep 3600'],
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
        {
          name: 'd',
          command: ['sh', '-c', 'exec sleep 3600'],
          volumeMounts: [{ name: 'scratch', mountPath: '/sub', subPath: 'sub' }],
        },
      ],
      { volumes: [{ name: 'scratch', emptyDir: { medium: 'Memory' } }] },
    ),
  );
  const uid = await uidOf('orphan');
  await eventually('orphan Running', async () => (await kubelet.pod('orphan'))?.status?.phase === 'Running', 60_000);
  const mounts = await mountsUnder(podDir(uid));
  expect(mounts.some((m) => m.fsType === 'tmpfs' && m.mountPoint.endsWith('/kubernetes.io~empty-dir/scratch'))).toBe(true);
  expect(mounts.some((m) => m.mountPoint.startsWith(path.join(podDir(uid), 'volume-subpaths', 'scratch', 'd')))).toBe(true);

  await kubelet.stop();
  await kubelet.removeManifest('orphan.yaml');
  await kubelet.start(kubeletArgs());
  await waitHealthy(kubelet);
  await eventually('orphan pod dir removed', async () => !(await exists(podDir(uid))), 60_000);
  expect(await mountsUnder(podDir(uid))).toEqual([]);
  expect(await runningContainerIDs('orphan')).toEqual([]);
  expect((await criSandboxesOf(kubelet, 'orphan')).filter((s) => s.state === 'SANDBOX_READY')).toEqual([]);
});

/** Writes an object manifest as an operator should: a dot-file first, then a rename. */
async function writeObjects(file: string, text: string): Promise<void> {
  const tmp = path.join(objectDir, `.${file}.tmp`);
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, path.join(objectDir, file));
}

const objectsAt = (version: string): string =>
  [
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {a: ${version}, b: ${version}}`,
    'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {token: s3cret}',
  ].join('\n---\n');

test('a configMap volume from --static-object-dir follows edits atomically (the reader never sees a mix); the secret volume is a tmpfs', async () => {
  const out = path.join(kubelet.hostDir, 'cm-out');
  await writeObjects('app.yaml', objectsAt('v1'));
  // A reader that resolves ..data once per round, as the atomic writer's contract allows, and
  // records every value it sees and any round where a and b differ.
  const reader = [
    'grep " /sec " /proc/mounts > /out/sec-mounts',
    'cat /sec/token > /out/token',
    'last=',
    'while true; do',
    '  d=$(readlink /cfg/..data) || continue',
    '  a=$(cat /cfg/$d/a 2>/dev/null) || continue',
    '  b=$(cat /cfg/$d/b 2>/dev/null) || continue',
    '  if [ "$a" != "$b" ]; then echo "$d a=$a b=$b" >> /out/mix; fi',
    '  if [ "$a" != "$last" ]; then echo "$a" >> /out/values; last=$a; fi',
    'done',
  ].join('\n');
  await kubelet.writeManifest(
    'cm.yaml',
    busyboxPod(
      'cm',
      [
        {
          name: 'reader',
          command: ['sh', '-c', reader],
          volumeMounts: [
            { name: 'cfg', mountPath: '/cfg' },
            { name: 'sec', mountPath: '/sec' },
            { name: 'out', mountPath: '/out' },
          ],
        },
      ],
      {
        volumes: [
          { name: 'cfg', configMap: { name: 'app' } },
          { name: 'sec', secret: { secretName: 'creds' } },
          { name: 'out', hostPath: { path: out, type: 'DirectoryOrCreate' } },
        ],
      },
    ),
  );
  const uid = await uidOf('cm');
  const values = async (): Promise<string[]> =>
    (await fs.readFile(path.join(out, 'values'), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
  await eventually('the reader saw v1', async () => (await values()).at(-1) === 'v1', 60_000);

  // The secret: a tmpfs in the container and on the host, with the decoded value.
  expect(await fs.readFile(path.join(out, 'sec-mounts'), 'utf8')).toMatch(/ \/sec tmpfs /);
  expect(await fs.readFile(path.join(out, 'token'), 'utf8')).toBe('s3cret');
  const secretDir = path.join(podDir(uid), 'volumes', 'kubernetes.io~secret', 'sec');
  expect((await mountsUnder(podDir(uid))).find((m) => m.mountPoint === secretDir)?.fsType).toBe('tmpfs');

  // An invalid manifest beside the good one is reported with file, field and reason; the kubelet goes on.
  await writeObjects('broken.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: default}\n');

  for (const version of ['v2', 'v3', 'v4', 'v5']) {
    await writeObjects('app.yaml', objectsAt(version));
    await eventually(`the reader saw ${version}`, async () => (await values()).at(-1) === version, 30_000, 100);
  }
  expect(await values()).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
  expect(await fs.readFile(path.join(out, 'mix'), 'utf8').catch(() => '')).toBe('');
  expect(kubelet.output()).toContain(`${path.join(objectDir, 'broken.yaml')}: metadata.name:`);
  expect(kubelet.running()).toBe(true);

  // On the host: the atomic writer's layout, with only the current generation left.
  const cfgDir = path.join(podDir(uid), 'volumes', 'kubernetes.io~configmap', 'cfg');
  const generation = await fs.readlink(path.join(cfgDir, '..data'));
  expect(generation).toMatch(/^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.[0-9a-f]+$/);
  expect(await fs.readlink(path.join(cfgDir, 'a'))).toBe('..data/a');
  expect((await fs.readdir(cfgDir)).sort()).toEqual(['..data', generation, 'a', 'b'].sort());
  expect(await fs.readFile(path.join(cfgDir, 'b'), 'utf8')).toBe('v5');
  expect(containerState(await kubelet.pod('cm'), 'reader')?.restartCount).toBe(0);

  await kubelet.removeManifest('cm.yaml');
  await eventually('cm: pod dir removed', async () => !(await exists(podDir(uid))), 60_000);
  expect(await mountsUnder(podDir(uid))).toEqual([]);
});
