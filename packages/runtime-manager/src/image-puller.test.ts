import type { Container, Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingEventRecorder, RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import type { AuthConfig, ImageService, ImageStatusResponse, PullImageRequest, PullImageResponse } from '@kubelet-ts/cri-client';
import { CriError } from '@kubelet-ts/cri-client';
import { RuntimeManagerError } from './errors.js';
import { applyDefaultImageTag, createImagePuller, imageSizeBucket } from './image-puller.js';

/** A small image service: a set of present images, a scripted pull. */
class TestImages implements ImageService {
  present = new Map<string, string>();
  /** Image sizes ImageStatus reports, by name. */
  sizes = new Map<string, number>();
  statusError: Error | undefined;
  pulls: string[] = [];
  /** The credentials of each PullImage call (undefined: anonymous). */
  auths: Array<AuthConfig | undefined> = [];
  /** Fails a pull with these credentials (a registry refusing them). */
  authError: ((auth: AuthConfig | undefined) => Error | undefined) | undefined;
  pullError: Error | undefined;
  /** When set, pulls wait for `release()`. */
  gate: Promise<void> | undefined;
  active = 0;
  maxActive = 0;

  async listImages() {
    return { images: [] };
  }
  // eslint-disable-next-line require-yield
  async *streamImages() {
    return;
  }
  async imageStatus(req: { image?: { image?: string } | null }): Promise<ImageStatusResponse> {
    if (this.statusError !== undefined) throw this.statusError;
    const name = req.image?.image ?? '';
    const id = this.present.get(name);
    const size = String(this.sizes.get(name) ?? 0);
    return { image: id === undefined ? null : ({ id, size } as ImageStatusResponse['image']), info: {} };
  }
  async pullImage(req: PullImageRequest): Promise<PullImageResponse> {
    const name = req.image?.image ?? '';
    this.pulls.push(name);
    this.auths.push(req.auth ?? undefined);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.gate !== undefined) await this.gate;
      if (this.pullError !== undefined) throw this.pullError;
      const authError = this.authError?.(req.auth ?? undefined);
      if (authError !== undefined) throw authError;
      const id = `sha256:${name.length}`;
      this.present.set(name, id);
      return { imageRef: id };
    } finally {
      this.active--;
    }
  }
  async removeImage() {
    return {};
  }
  async imageFsInfo() {
    return { imageFilesystems: [], containerFilesystems: [] };
  }
}

const pod = (uid = 'u1'): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid }, spec: { containers: [] } });
const container = (image: string, imagePullPolicy?: string): Container => ({
  name: 'c',
  image,
  ...(imagePullPolicy ? { imagePullPolicy } : {}),
});

async function reasonOf(p: Promise<unknown>): Promise<[string, string]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeManagerError.is(err)) throw new Error(`expected a RuntimeManagerError, got ${String(err)}`);
  return [err.reason, err.message];
}

describe('applyDefaultImageTag', () => {
  it.each([
    ['busybox', 'busybox:latest'],
    ['busybox:1.36', 'busybox:1.36'],
    ['localhost:5000/a/b', 'localhost:5000/a/b:latest'],
    ['127.0.0.1:5000/kubelet-ts/busybox:test', '127.0.0.1:5000/kubelet-ts/busybox:test'],
    [`busybox@sha256:${'a'.repeat(64)}`, `busybox@sha256:${'a'.repeat(64)}`],
  ])('%s -> %s', (input, output) => {
    expect(applyDefaultImageTag(input)).toBe(output);
  });

  it.each(['', 'Busybox', 'busy box', 'busybox:', 'busybox@sha256:zz', 'a//b'])('refuses %p as InvalidImageName', (input) => {
    expect(() => applyDefaultImageTag(input)).toThrow(expect.objectContaining({ code: 'INVALID_IMAGE_NAME', reason: 'InvalidImageName' }));
  });
});

describe('createImagePuller', () => {
  it('IfNotPresent: uses a present image without pulling, pulls a missing one', async () => {
    const images = new TestImages();
    images.present.set('busybox:1.36', 'sha256:present');
    const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
    await expect(puller.ensureImageExists(pod(), container('busybox:1.36', 'IfNotPresent'))).resolves.toBe('sha256:present');
    expect(images.pulls).toEqual([]);
    await expect(puller.ensureImageExists(pod(), container('other:1', 'IfNotPresent'))).resolves.toBe('sha256:7');
    expect(images.pulls).toEqual(['other:1']);
  });

  it("tells the pulling time recorder of each pod's pull as it starts and when it succeeded, not of a present image", async () => {
    const images = new TestImages();
    images.present.set('busybox:1.36', 'sha256:present');
    const calls: string[] = [];
    const puller = createImagePuller({
      imageService: images,
      clock: new FakeClock(),
      pullingTimeRecorder: {
        recordImageStartedPulling: (uid) => calls.push(`started ${uid}`),
        recordImageFinishedPulling: (uid) => calls.push(`finished ${uid}`),
      },
    });
    await puller.ensureImageExists(pod('u1'), container('busybox:1.36', 'IfNotPresent'));
    await puller.ensureImageExists(pod('u1'), container('other:1', 'IfNotPresent'));
    images.pullError = new Error('registry down');
    await reasonOf(puller.ensureImageExists(pod('u2'), container('third:1', 'IfNotPresent')));
    // As upstream: a failed pull started, and never finished.
    expect(calls).toEqual(['started u1', 'finished u1', 'started u2']);
  });

  it('observes each successful pull, its wait for a slot included, in kubelet_image_pull_duration_seconds by size', async () => {
    const images = new TestImages();
    images.sizes.set('big:1', 50 * 1024 * 1024);
    const clock = new FakeClock();
    const metrics = new RecordingMetrics();
    const puller = createImagePuller({ imageService: images, clock, metrics });
    let release = (): void => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const pulling = puller.ensureImageExists(pod(), container('big:1', 'IfNotPresent'));
    await flushMicrotasks();
    clock.setNow(clock.now() + 2_500.7);
    release();
    await pulling;
    images.gate = undefined;
    await puller.ensureImageExists(pod(), container('unknown-size:1', 'IfNotPresent'));
    images.pullError = new Error('registry down');
    await reasonOf(puller.ensureImageExists(pod(), container('fails:1', 'IfNotPresent')));
    // Whole milliseconds, as upstream's Truncate; a failed pull is not observed.
    expect(metrics.observations('kubelet_image_pull_duration_seconds', { image_size_in_bytes: '10MB-100MB' })).toEqual([2.5]);
    expect(metrics.observations('kubelet_image_pull_duration_seconds', { image_size_in_bytes: 'N/A' })).toEqual([0]);
    expect(metrics.samples('kubelet_image_pull_duration_seconds')).toHaveLength(2);
    expect(metrics.buckets('kubelet_image_pull_duration_seconds')?.slice(0, 3)).toEqual([1, 5, 10]);
  });

  it.each([
    [0, 'N/A'],
    [1, '0-10MB'],
    [10 * 1024 * 1024, '0-10MB'],
    [10 * 1024 * 1024 + 1, '10MB-100MB'],
    [3 * 1024 ** 3, '1GB-5GB'],
    [200 * 1024 ** 3, 'GT100GB'],
  ])("an image of %d bytes is in upstream's size bucket %s", (size, label) => {
    expect(imageSizeBucket(size)).toBe(label);
  });

  it('Always pulls even when present; the default for :latest is Always', async () => {
    const images = new TestImages();
    images.present.set('busybox:1.36', 'sha256:present');
    images.present.set('busybox:latest', 'sha256:present');
    const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
    await puller.ensureImageExists(pod(), container('busybox:1.36', 'Always'));
    await puller.ensureImageExists(pod(), container('busybox'));
    expect(images.pulls).toEqual(['busybox:1.36', 'busybox:latest']);
  });

  it('Never: ErrImageNeverPull with the upstream message when missing, the ref when present', async () => {
    const images = new TestImages();
    images.present.set('here:1', 'sha256:here');
    const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
    await expect(puller.ensureImageExists(pod(), container('here:1', 'Never'))).resolves.toBe('sha256:here');
    expect(await reasonOf(puller.ensureImageExists(pod(), container('gone:1', 'Never')))).toEqual([
      'ErrImageNeverPull',
      'Container image "gone:1" is not present with pull policy of Never',
    ]);
    expect(images.pulls).toEqual([]);
  });

  it('InvalidImageName before any runtime call', async () => {
    const images = new TestImages();
    const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
    const [code] = await reasonOf(puller.ensureImageExists(pod(), container('NOT valid')));
    expect(code).toBe('InvalidImageName');
    expect(images.pulls).toEqual([]);
  });

  it('ErrImagePull, then ImagePullBackOff for 10 s doubling per pod+image, up to 300 s', async () => {
    const clock = new FakeClock();
    const images = new TestImages();
    images.pullError = new Error('401 Unauthorized');
    const puller = createImagePuller({ imageService: images, clock });
    const ensure = (uid = 'u1') => reasonOf(puller.ensureImageExists(pod(uid), container('img:1', 'IfNotPresent')));

    expect(await ensure()).toEqual(['ErrImagePull', 'Failed to pull image "img:1": 401 Unauthorized']);
    expect(await ensure()).toEqual(['ImagePullBackOff', 'Back-off pulling image "img:1"']);
    // another pod has its own back-off
    expect((await ensure('u2'))[0]).toBe('ErrImagePull');
    await clock.advance(9_999);
    expect((await ensure())[0]).toBe('ImagePullBackOff');
    await clock.advance(1);
    expect((await ensure())[0]).toBe('ErrImagePull'); // delay now 20 s
    await clock.advance(19_999);
    expect((await ensure())[0]).toBe('ImagePullBackOff');
    await clock.advance(1);
    expect((await ensure())[0]).toBe('ErrImagePull');
    expect(images.pulls).toHaveLength(4);

    // the delay is capped at 300 s
    for (const step of [40_000, 80_000, 160_000, 300_000]) {
      await clock.advance(step);
      expect((await ensure())[0]).toBe('ErrImagePull');
    }
    await clock.advance(300_000);
    expect((await ensure())[0]).toBe('ErrImagePull');
    await clock.advance(299_999);
    expect((await ensure())[0]).toBe('ImagePullBackOff');

    // success clears the back-off
    images.pullError = undefined;
    await clock.advance(1);
    await expect(puller.ensureImageExists(pod(), container('img:1', 'Always'))).resolves.toBe('sha256:5');
    images.pullError = new Error('again');
    expect(await reasonOf(puller.ensureImageExists(pod(), container('img:1', 'Always')))).toEqual([
      'ErrImagePull',
      'Failed to pull image "img:1": again',
    ]);
  });

  it('serializes pulls by default and deduplicates concurrent pulls of one image', async () => {
    const images = new TestImages();
    let release = (): void => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
    const all = Promise.all([
      puller.ensureImageExists(pod('a'), container('one:1')),
      puller.ensureImageExists(pod('b'), container('one:1')),
      puller.ensureImageExists(pod('c'), container('two:1')),
    ]);
    await flushMicrotasks();
    expect(images.pulls).toEqual(['one:1']);
    release();
    await expect(all).resolves.toEqual(['sha256:5', 'sha256:5', 'sha256:5']);
    expect(images.pulls).toEqual(['one:1', 'two:1']);
    expect(images.maxActive).toBe(1);
  });

  it('maxParallelImagePulls bounds parallel pulls when not serialized', async () => {
    const images = new TestImages();
    let release = (): void => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const puller = createImagePuller({
      imageService: images,
      clock: new FakeClock(),
      serializeImagePulls: false,
      maxParallelImagePulls: 2,
    });
    const all = Promise.all(['a:1', 'b:1', 'c:1', 'd:1'].map((i) => puller.ensureImageExists(pod(), container(i))));
    await flushMicrotasks();
    expect(images.active).toBe(2);
    release();
    await all;
    expect(images.maxActive).toBe(2);
    expect(images.pulls.sort()).toEqual(['a:1', 'b:1', 'c:1', 'd:1']);
  });

  it('an aborted caller stops waiting without a back-off; the shared pull goes on for the others', async () => {
    const clock = new FakeClock();
    const images = new TestImages();
    let release = (): void => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const puller = createImagePuller({ imageService: images, clock });
    const controller = new AbortController();
    const aborted = reasonOf(puller.ensureImageExists(pod('a'), container('img:1'), { signal: controller.signal }));
    const other = puller.ensureImageExists(pod('b'), container('img:1'));
    await flushMicrotasks();
    controller.abort();
    expect(await aborted).toEqual(['ErrImagePull', 'Pulling image "img:1" was cancelled']);
    release();
    await expect(other).resolves.toBe('sha256:5');
    expect(images.pulls).toEqual(['img:1']);
    // no back-off was recorded for the aborted pod: it may pull again at once
    images.pullError = new Error('x');
    expect((await reasonOf(puller.ensureImageExists(pod('a'), container('img:1', 'Always'))))[0]).toBe('ErrImagePull');
  });

  describe('serializeImagePulls, maxParallelImagePulls and deduplication (issue 7)', () => {
    /** TestImages whose pulls each wait for their own release, in the order they reached the runtime. */
    class GatedImages extends TestImages {
      readonly waiting: Array<{ name: string; release: () => void; fail: (err: Error) => void }> = [];
      override async pullImage(req: PullImageRequest): Promise<PullImageResponse> {
        const name = req.image?.image ?? '';
        this.pulls.push(name);
        this.active++;
        this.maxActive = Math.max(this.maxActive, this.active);
        try {
          await new Promise<void>((resolve, reject) => this.waiting.push({ name, release: resolve, fail: reject }));
          const id = `sha256:${name}`;
          this.present.set(name, id);
          return { imageRef: id };
        } finally {
          this.active--;
        }
      }
      next(): { name: string; release: () => void; fail: (err: Error) => void } {
        const head = this.waiting.shift();
        if (head === undefined) throw new Error('no pull is waiting');
        return head;
      }
    }

    it('serialized (default): the second pull reaches the runtime only after the first ended, also when the first failed', async () => {
      const images = new GatedImages();
      const puller = createImagePuller({ imageService: images, clock: new FakeClock() });
      const first = reasonOf(puller.ensureImageExists(pod('a'), container('one:1')));
      const second = puller.ensureImageExists(pod('b'), container('two:1'));
      await flushMicrotasks();
      expect(images.pulls).toEqual(['one:1']);
      images.next().fail(new Error('registry down'));
      expect(await first).toEqual(['ErrImagePull', 'Failed to pull image "one:1": registry down']);
      await flushMicrotasks();
      expect(images.pulls).toEqual(['one:1', 'two:1']);
      images.next().release();
      await expect(second).resolves.toBe('sha256:two:1');
      expect(images.maxActive).toBe(1);
    });

    it('serializeImagePulls false without maxParallelImagePulls: every pull at once', async () => {
      const images = new GatedImages();
      const puller = createImagePuller({ imageService: images, clock: new FakeClock(), serializeImagePulls: false });
      const all = Promise.all(['a:1', 'b:1', 'c:1', 'd:1', 'e:1'].map((i) => puller.ensureImageExists(pod(), container(i))));
      await flushMicrotasks();
      expect(images.active).toBe(5);
      while (images.waiting.length > 0) images.next().release();
      await all;
    });

    it('maxParallelImagePulls: a queued pull starts as soon as one of the running ones ends', async () => {
      const images = new GatedImages();
      const puller = createImagePuller({
        imageService: images,
        clock: new FakeClock(),
        serializeImagePulls: false,
        maxParallelImagePulls: 2,
      });
      const all = Promise.all(['a:1', 'b:1', 'c:1'].map((i) => puller.ensureImageExists(pod(), container(i))));
      await flushMicrotasks();
      expect(images.pulls).toEqual(['a:1', 'b:1']);
      images.next().release();
      await flushMicrotasks();
      expect(images.pulls).toEqual(['a:1', 'b:1', 'c:1']);
      expect(images.active).toBe(2);
      while (images.waiting.length > 0) images.next().release();
      await all;
      expect(images.maxActive).toBe(2);
    });

    it('refuses a maxParallelImagePulls below 1', () => {
      expect(() => createImagePuller({ imageService: new TestImages(), serializeImagePulls: false, maxParallelImagePulls: 0 })).toThrow(
        RangeError,
      );
    });

    it('concurrent pulls of one image (also spelled without its :latest tag) make one CRI PullImage call; a failure reaches every waiter', async () => {
      const images = new GatedImages();
      const puller = createImagePuller({ imageService: images, clock: new FakeClock(), serializeImagePulls: false });
      const waiters = [
        reasonOf(puller.ensureImageExists(pod('a'), container('app:1'))),
        reasonOf(puller.ensureImageExists(pod('b'), container('app:1'))),
        reasonOf(puller.ensureImageExists(pod('c'), container('app:1'))),
      ];
      await flushMicrotasks();
      expect(images.pulls).toEqual(['app:1']);
      images.next().fail(new Error('manifest unknown'));
      for (const w of waiters) expect(await w).toEqual(['ErrImagePull', 'Failed to pull image "app:1": manifest unknown']);

      // the shared pull is forgotten once it ended: a later pull calls the runtime again
      const latest = [
        puller.ensureImageExists(pod('d'), container('web', 'Always')),
        puller.ensureImageExists(pod('e'), container('web:latest', 'Always')),
      ];
      await flushMicrotasks();
      expect(images.pulls).toEqual(['app:1', 'web:latest']);
      images.next().release();
      await expect(Promise.all(latest)).resolves.toEqual(['sha256:web:latest', 'sha256:web:latest']);
    });
  });
});

describe('createImagePuller: events (upstream image manager)', () => {
  const named = (image: string, imagePullPolicy?: string): Container => ({ ...container(image, imagePullPolicy), name: 'app' });
  const podWith = (c: Container, uid = 'u1'): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid }, spec: { containers: [c] } });
  const ref = { kind: 'Pod', apiVersion: 'v1', name: 'p', namespace: 'ns', uid: 'u1', fieldPath: 'spec.containers{app}' };
  const setupPuller = () => {
    const clock = new FakeClock();
    const images = new TestImages();
    const recorder = new RecordingEventRecorder();
    const puller = createImagePuller({ imageService: images, clock, recorder });
    const ensure = (c: Container, uid?: string, signal?: AbortSignal) =>
      puller.ensureImageExists(podWith(c, uid), c, signal === undefined ? {} : { signal }).then(
        (imageRef) => imageRef,
        (err: unknown) => err,
      );
    return { clock, images, recorder, ensure };
  };

  it('a present image: Normal Pulled "already present on machine", about the container (fieldPath)', async () => {
    const { images, recorder, ensure } = setupPuller();
    images.present.set('busybox:1.36', 'sha256:present');
    await ensure(named('busybox:1.36'));
    expect(recorder.events).toEqual([
      { object: ref, type: 'Normal', reason: 'Pulled', message: 'Container image "busybox:1.36" already present on machine' },
    ]);
  });

  it('a pull: Pulling, then Pulled with the pull time, the time including the wait for a pull slot, and the size', async () => {
    const { clock, images, recorder, ensure } = setupPuller();
    images.sizes.set('one:1', 4_194_304);
    images.sizes.set('two:1', 1_234);
    let release = (): void => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const both = Promise.all([ensure(named('one:1')), ensure(named('two:1'), 'u2')]);
    await flushMicrotasks();
    await clock.advance(1_500);
    release();
    await both;
    // Serialized: two:1 waited 1.5 s for one:1, then pulled at once; the spec's image name, as given.
    expect(recorder.lines()).toEqual([
      'Normal Pulling Pulling image "one:1"',
      'Normal Pulling Pulling image "two:1"',
      'Normal Pulled Successfully pulled image "one:1" in 1.5s (1.5s including waiting). Image size: 4194304 bytes.',
      'Normal Pulled Successfully pulled image "two:1" in 0s (1.5s including waiting). Image size: 1234 bytes.',
    ]);
  });

  it('a failed pull: Warning Failed with the runtime error; inside the back-off, Normal BackOff and no pull', async () => {
    const { images, recorder, ensure } = setupPuller();
    images.pullError = new Error('401 Unauthorized');
    await ensure(named('img:1'));
    await ensure(named('img:1'));
    expect(recorder.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'Pulling', 'Pulling image "img:1"'],
      ['Warning', 'Failed', 'Failed to pull image "img:1": 401 Unauthorized'],
      ['Normal', 'BackOff', 'Back-off pulling image "img:1"'],
    ]);
    expect(recorder.events.every((e) => e.object.fieldPath === 'spec.containers{app}')).toBe(true);
  });

  it('pull policy Never, an invalid name and a failed inspection are Warning events', async () => {
    const { images, recorder, ensure } = setupPuller();
    await ensure(named('gone:1', 'Never'));
    await ensure(named('not valid'));
    images.statusError = new Error('runtime down');
    await ensure(named('any:1'));
    expect(recorder.lines()).toEqual([
      'Warning ErrImageNeverPull Container image "gone:1" is not present with pull policy of Never',
      'Warning InspectFailed Failed to apply default image tag "not valid": couldn\'t parse image name "not valid": invalid reference format',
      'Warning InspectFailed Failed to inspect image "any:1": runtime down',
    ]);
  });

  it('a caller that went away records no Failed event', async () => {
    const { images, recorder, ensure } = setupPuller();
    images.gate = new Promise<void>(() => undefined);
    const controller = new AbortController();
    const aborted = ensure(named('img:1'), 'u1', controller.signal);
    await flushMicrotasks();
    controller.abort();
    await aborted;
    expect(recorder.lines()).toEqual(['Normal Pulling Pulling image "img:1"']);
  });
});

describe('pull credentials (upstream PullImage over the keyring)', () => {
  const unauthorized = (user: string): Error => {
    const details = `pulling from host registry.io failed with status code [manifests v1]: 401 Unauthorized (${user})`;
    return new CriError('UNKNOWN', `pullImage: ${details}`, { method: 'pullImage', details });
  };
  const creds = (...users: string[]): AuthConfig[] => users.map((username) => ({ username, password: `${username}-pw` }));

  it('pulls anonymously when there are no credentials', async () => {
    const images = new TestImages();
    const puller = createImagePuller({ imageService: images, clock: new FakeClock(), getPullCredentials: () => [] });
    await puller.ensureImageExists(pod(), container('registry.io/app:1'));
    expect(images.auths).toEqual([undefined]);
  });

  it('tries each credential in order until one pulls, and asks with the tagged image and the pod', async () => {
    const images = new TestImages();
    images.authError = (auth) => (auth?.username === 'good' ? undefined : unauthorized(auth?.username ?? 'anonymous'));
    const asked: Array<[string, string]> = [];
    const puller = createImagePuller({
      imageService: images,
      clock: new FakeClock(),
      getPullCredentials: async (image, p) => {
        asked.push([image, p.metadata.uid ?? '']);
        return creds('stale', 'good', 'never-tried');
      },
    });
    await expect(puller.ensureImageExists(pod(), container('registry.io/app'))).resolves.toBe('sha256:22');
    expect(images.auths.map((a) => a?.username)).toEqual(['stale', 'good']);
    expect(asked).toEqual([['registry.io/app:latest', 'u1']]);
  });

  it('reports every failure when all credentials fail, once per distinct message', async () => {
    const recorder = new RecordingEventRecorder();
    const images = new TestImages();
    images.authError = (auth) => unauthorized(auth?.username ?? '');
    const puller = createImagePuller({ imageService: images, clock: new FakeClock(), recorder, getPullCredentials: () => creds('a', 'b') });
    const pulled = puller.ensureImageExists(pod(), container('registry.io/app:1'));
    const message =
      'Failed to pull image "registry.io/app:1": [pulling from host registry.io failed with status code [manifests v1]: 401 Unauthorized (a), ' +
      'pulling from host registry.io failed with status code [manifests v1]: 401 Unauthorized (b)]';
    expect(await reasonOf(pulled)).toEqual(['ErrImagePull', message]);
    expect(recorder.events.at(-1)?.message).toBe(message);

    const same = new TestImages();
    same.authError = () => new Error('401 Unauthorized');
    const samePuller = createImagePuller({ imageService: same, clock: new FakeClock(), getPullCredentials: () => creds('a', 'b', 'c') });
    expect(await reasonOf(samePuller.ensureImageExists(pod(), container('registry.io/app:1')))).toEqual([
      'ErrImagePull',
      'Failed to pull image "registry.io/app:1": 401 Unauthorized',
    ]);
    expect(same.pulls).toHaveLength(3);
  });

  it('never shares a pull across credentials: concurrent pods with a good and a bad secret each pull with their own', async () => {
    const images = new TestImages();
    images.authError = (auth) => (auth?.username === 'good' ? undefined : unauthorized(auth?.username ?? 'anonymous'));
    let release: () => void = () => undefined;
    images.gate = new Promise<void>((resolve) => (release = resolve));
    const puller = createImagePuller({
      imageService: images,
      clock: new FakeClock(),
      serializeImagePulls: false,
      getPullCredentials: (_image, p) => creds(p.metadata.uid === 'good-pod' ? 'good' : 'bad'),
    });
    const good = puller.ensureImageExists(pod('good-pod'), container('registry.io/app:1', 'Always'));
    const bad = reasonOf(puller.ensureImageExists(pod('bad-pod'), container('registry.io/app:1', 'Always')));
    await flushMicrotasks();
    release();
    await expect(good).resolves.toBe('sha256:17');
    expect((await bad)[0]).toBe('ErrImagePull');
    expect(images.auths.map((a) => a?.username)).toEqual(['good', 'bad']);
  });

  it('fails the pull before it starts when the credentials cannot be looked up: no Pulling event, no back-off', async () => {
    const recorder = new RecordingEventRecorder();
    const images = new TestImages();
    let fail = true;
    const puller = createImagePuller({
      imageService: images,
      clock: new FakeClock(),
      recorder,
      getPullCredentials: () => (fail ? Promise.reject(new Error('secret store unavailable')) : []),
    });
    expect(await reasonOf(puller.ensureImageExists(pod(), container('registry.io/app:1')))).toEqual([
      'ErrImagePull',
      'Failed to get pull credentials for image "registry.io/app:1": secret store unavailable',
    ]);
    expect(images.pulls).toEqual([]);
    expect(recorder.events).toEqual([]);
    fail = false;
    await expect(puller.ensureImageExists(pod(), container('registry.io/app:1'))).resolves.toBe('sha256:17');
  });
});
