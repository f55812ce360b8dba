/**
 * Issue 7, image GC acceptance: through the kubelet on the real runtime, image GC with a low threshold
 * removes unused images least recently used first and keeps the ones in use, the sandbox image and the
 * shared base images; the last-used times it orders by were recorded by an earlier kubelet run
 * (they survive the restart in <root-dir>/image-gc/state.json).
 *
 * The GC images are made for this test in the loopback registry (busybox with a label of their own, so
 * each has its own image ID) and pulled by the kubelet. A keeper pod uses the shared busybox and
 * http-echo images for the whole test, so GC never sees them unused; images other suites pulled from
 * the registries and GC removed are pulled back at the end.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { imageGCStateFile } from '../../src/internal/image-gc.js';
import { BUSYBOX, HTTP_IMAGE, createKubelet, criContainersOf, env, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

const TEST_REPO = 'kubelet-ts/image-gc-test';
const SOURCE_REPO = 'kubelet-ts/busybox';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

interface Manifest {
  mediaType?: string;
  config: { mediaType: string; digest: string; size: number };
  layers: Array<{ mediaType: string; digest: string; size: number }>;
}

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

async function checked(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

/** Uploads a blob to `repo` (monolithic upload: POST then PUT with the digest). */
async function uploadBlob(registry: string, repo: string, data: Buffer): Promise<string> {
  const digest = sha256(data);
  const started = await checked(await fetch(`http://${registry}/v2/${repo}/blobs/uploads/`, { method: 'POST' }), `start upload to ${repo}`);
  const location = new URL(started.headers.get('location') ?? '', `http://${registry}`);
  location.searchParams.set('digest', digest);
  await checked(
    await fetch(location, { method: 'PUT', body: data, headers: { 'content-type': 'application/octet-stream' } }),
    `upload ${digest}`,
  );
  return digest;
}

/**
 * Pushes `<registry>/kubelet-ts/image-gc-test:<tag>`: the registry's busybox with a label naming the tag,
 * so it has its own image ID (config digest). Deterministic: pushing again changes nothing.
 */
async function pushVariant(registry: string, tag: string): Promise<string> {
  const accept = { accept: `${OCI_MANIFEST}, ${DOCKER_MANIFEST}` };
  const manifestResponse = await checked(
    await fetch(`http://${registry}/v2/${SOURCE_REPO}/manifests/test`, { headers: accept }),
    'source manifest',
  );
  const manifest = (await manifestResponse.json()) as Manifest;
  const configResponse = await checked(
    await fetch(`http://${registry}/v2/${SOURCE_REPO}/blobs/${manifest.config.digest}`),
    'source config',
  );
  const config = (await configResponse.json()) as { config?: { Labels?: Record<string, string> } };
  config.config = { ...config.config, Labels: { ...config.config?.Labels, 'io.kubelet-ts.image-gc-test': tag } };
  const configBytes = Buffer.from(JSON.stringify(config));
  for (const layer of manifest.layers) {
    // Cross-repository mount; when the registry starts an upload instead, copy the layer.
    const mount = await fetch(`http://${registry}/v2/${TEST_REPO}/blobs/uploads/?mount=${layer.digest}&from=${SOURCE_REPO}`, {
      method: 'POST',
    });
    if (mount.status === 201) continue;
    const blob = Buffer.from(
      await (await checked(await fetch(`http://${registry}/v2/${SOURCE_REPO}/blobs/${layer.digest}`), 'source layer')).arrayBuffer(),
    );
    await uploadBlob(registry, TEST_REPO, blob);
  }
  const configDigest = await uploadBlob(registry, TEST_REPO, configBytes);
  const mediaType = manifest.mediaType ?? manifestResponse.headers.get('content-type') ?? OCI_MANIFEST;
  const newManifest: Manifest = { ...manifest, config: { ...manifest.config, digest: configDigest, size: configBytes.length } };
  await checked(
    await fetch(`http://${registry}/v2/${TEST_REPO}/manifests/${tag}`, {
      method: 'PUT',
      body: JSON.stringify(newManifest),
      headers: { 'content-type': mediaType },
    }),
    `push ${TEST_REPO}:${tag}`,
  );
  return `${registry}/${TEST_REPO}:${tag}`;
}

interface SavedState {
  images: Record<string, { firstDetected: string; lastUsed?: string }>;
}

let kubelet: KubeletUnderTest;
let before: Array<{ id: string; repoTags: string[] }> = [];
const refs: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

async function imageId(ref: string): Promise<string | undefined> {
  const status = await kubelet.cri.image.imageStatus({ image: { image: ref } });
  return status.image?.id || undefined;
}

async function readState(): Promise<SavedState | undefined> {
  try {
    return JSON.parse(await fs.readFile(imageGCStateFile(kubelet.rootDir), 'utf8')) as SavedState;
  } catch {
    return undefined;
  }
}

/** The kubelet's image GC log lines, for failure messages. */
function imageGcLines(): string {
  return kubelet
    .output()
    .split('\n')
    .filter((line) => line.includes('image-gc]'))
    .slice(-30)
    .join('\n');
}

function sleepPod(name: string, image: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }],
    },
  };
}

async function runningContainer(podName: string): Promise<void> {
  await eventually(
    `${podName} running`,
    async () => (await criContainersOf(kubelet, podName)).some((c) => c.state === 'CONTAINER_RUNNING'),
    30_000,
    100,
  );
}

beforeAll(async () => {
  const registry = env('KUBELET_TS_REGISTRY');
  for (const tag of ['a', 'b', 'c'] as const) refs[tag] = await pushVariant(registry, tag);
  kubelet = await createKubelet('imagegc');
  // Leftovers of an earlier failed run: the kubelet must really pull.
  for (const ref of Object.values(refs)) await kubelet.cri.image.removeImage({ image: { image: ref } }, { ignoreNotFound: true });
  before = (await kubelet.cri.image.listImages({})).images.map((i) => ({ id: i.id, repoTags: [...i.repoTags] }));
});

afterAll(async () => {
  if (kubelet === undefined) return;
  const cri = kubelet.cri;
  await kubelet.stop();
  const sandboxes = await cri.runtime.listPodSandbox({});
  for (const s of sandboxes.items.filter((x) => (x.metadata?.name ?? '').endsWith(`-${kubelet.nodeName}`))) {
    await cri.runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
    await cri.runtime.removePodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
  }
  for (const ref of Object.values(refs)) if (ref !== '') await cri.image.removeImage({ image: { image: ref } }, { ignoreNotFound: true });
  // Put back what other suites had pulled from the loopback registries and GC removed.
  const now = new Set((await cri.image.listImages({})).images.flatMap((i) => i.repoTags));
  const authRegistry = process.env['KUBELET_TS_AUTH_REGISTRY'];
  for (const tag of before.flatMap((i) => i.repoTags)) {
    if (now.has(tag)) continue;
    const auth =
      authRegistry !== undefined && tag.startsWith(`${authRegistry}/`)
        ? { username: env('KUBELET_TS_REGISTRY_USER'), password: env('KUBELET_TS_REGISTRY_PASSWORD') }
        : undefined;
    await cri.image.pullImage({ image: { image: tag }, ...(auth ? { auth } : {}) }).catch((err: unknown) => {
      process.stderr.write(`image-gc test: could not pull ${tag} back: ${String(err)}\n`);
    });
  }
  // Should GC ever have removed a shared base image (a regression), import it again for the other suites.
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  for (const [ref, archive] of [
    [env('KUBELET_TS_PAUSE_IMAGE'), 'pause.tar'],
    [BUSYBOX(), 'busybox.tar'],
    [HTTP_IMAGE(), 'http-echo.tar'],
  ] as const) {
    if ((await cri.image.imageStatus({ image: { image: ref } })).image !== null) continue;
    process.stderr.write(`image-gc test: ${ref} is missing; importing it again\n`);
    await promisify(execFile)(
      process.env.KUBELET_TS_CTR ?? 'ctr',
      ['-a', socket, '-n', 'k8s.io', 'images', 'import', path.join(env('KUBELET_TS_IMAGES_DIR'), archive)],
      { timeout: 60_000 },
    );
  }
  await kubelet.cleanup();
});

test('image GC over a low threshold removes unused images least recently used first (times from before a restart) and keeps the in-use, sandbox and base images', async () => {
  // GC off (high threshold 100: upstream disables it); every start detects at once and saves the times.
  const gcOff = ['--image-gc-high-threshold=100', '--image-gc-low-threshold=99'];
  const restart = async (args: string[]): Promise<void> => {
    await kubelet.stop();
    await kubelet.start(args);
    await waitHealthy(kubelet);
  };
  await kubelet.start(gcOff);
  await waitHealthy(kubelet);
  await kubelet.writeManifest('keeper.json', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'keeper' },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'busybox', image: BUSYBOX(), imagePullPolicy: 'Never', command: ['sleep', '3600'] },
        { name: 'http', image: HTTP_IMAGE(), imagePullPolicy: 'Never' },
      ],
    },
  });
  await eventually(
    'keeper running',
    async () => (await criContainersOf(kubelet, 'keeper')).filter((c) => c.state === 'CONTAINER_RUNNING').length === 2,
    30_000,
    100,
  );

  // a is in use at one kubelet start, b at the next (a's pod deleted by then), c stays in use.
  const ids: Record<string, string> = {};
  let previous: string | undefined;
  for (const tag of ['a', 'b', 'c'] as const) {
    const podName = `gc-${tag}`;
    await kubelet.writeManifest(`${podName}.json`, sleepPod(podName, refs[tag]));
    if (previous !== undefined) {
      const gone = previous;
      await kubelet.removeManifest(`${gone}.json`);
      await eventually(`containers of ${gone} removed`, async () => (await criContainersOf(kubelet, gone)).length === 0, 30_000, 200);
    }
    await runningContainer(podName);
    ids[tag] = (await imageId(refs[tag])) ?? '';
    expect(ids[tag]).toMatch(/^sha256:/);
    await restart(gcOff);
    await eventually(
      `last use of ${tag} recorded at the kubelet start`,
      async () => (await readState())?.images[ids[tag] as string]?.lastUsed !== undefined,
      15_000,
      200,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\nstate: ${JSON.stringify(await readState())}\n${imageGcLines()}`);
    });
    previous = podName;
  }
  const recorded = (await readState()) as SavedState;
  const lastUsed = (tag: string): number => Date.parse(recorded.images[ids[tag] as string]?.lastUsed ?? '');
  expect(lastUsed('a')).toBeLessThan(lastUsed('b'));
  expect(lastUsed('b')).toBeLessThan(lastUsed('c'));
  expect(await imageId(refs.a)).toBe(ids['a']);
  expect(await imageId(refs.b)).toBe(ids['b']);

  // A new kubelet process on the same root dir, high threshold 1 % / low 0 %: its first GC run (at start)
  // must remove every unused image, in the order of the last-used times saved by the earlier runs.
  await restart(['--image-gc-high-threshold=1', '--image-gc-low-threshold=0', '--minimum-image-ttl-duration=1s']);
  await eventually(
    'a and b removed',
    async () => (await imageId(refs.a)) === undefined && (await imageId(refs.b)) === undefined,
    30_000,
    200,
  );

  // Least recently used first: a before b.
  const removals = kubelet
    .output()
    .split('\n')
    .filter((line) => line.includes('Removing image to free bytes'));
  const order = [ids['a'], ids['b']].map((id) => removals.findIndex((line) => line.includes(id as string)));
  expect(order[0]).toBeGreaterThanOrEqual(0);
  expect(order[0]).toBeLessThan(order[1] as number);
  // Kept: the image in use, the sandbox image, the shared base images; never a removal attempt on them.
  expect(await imageId(refs.c)).toBe(ids['c']);
  for (const ref of [env('KUBELET_TS_PAUSE_IMAGE'), BUSYBOX(), HTTP_IMAGE()]) {
    const id = await imageId(ref);
    expect(id).toMatch(/^sha256:/);
    expect(removals.some((line) => line.includes(id as string))).toBe(false);
  }
  expect(removals.some((line) => line.includes(ids['c'] as string))).toBe(false);
  // The kept images' times are still in the state file; the removed ones are gone from it.
  const after = await eventually(
    'state without a and b',
    async () => {
      const state = await readState();
      return state !== undefined && state.images[ids['a'] as string] === undefined && state.images[ids['b'] as string] === undefined
        ? state
        : undefined;
    },
    10_000,
    200,
  );
  expect(after.images[ids['c'] as string]?.lastUsed).toBeDefined();
  expect(path.dirname(imageGCStateFile(kubelet.rootDir))).toBe(path.join(kubelet.rootDir, 'image-gc'));
});
