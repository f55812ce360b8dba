import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeImageService, normalizeImageRef } from './fake-image.js';

describe('normalizeImageRef', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox:latest'],
    ['library/busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['127.0.0.1:5000/kubelet-ts/busybox:test', '127.0.0.1:5000/kubelet-ts/busybox:test'],
    ['localhost/kubelet-ts/pause', 'localhost/kubelet-ts/pause:latest'],
    ['quay.io/a/b@sha256:abc', 'quay.io/a/b@sha256:abc'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeImageRef(input)).toBe(expected);
  });
});

describe('FakeImageService', () => {
  it('pulls, reports status by tag, id and digest, and lists', async () => {
    const fake = new FakeImageService({ clock: new FakeClock() });
    const { imageRef } = await fake.pullImage({ image: { image: 'busybox' } });
    expect(imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    const byTag = await fake.imageStatus({ image: { image: 'docker.io/library/busybox:latest' } });
    expect(byTag.image?.id).toBe(imageRef);
    expect(byTag.image?.repoTags).toEqual(['docker.io/library/busybox:latest']);
    const digest = byTag.image?.repoDigests[0] ?? '';
    expect((await fake.imageStatus({ image: { image: digest } })).image?.id).toBe(imageRef);
    expect((await fake.imageStatus({ image: { image: imageRef } })).image?.size).toBe('1000000');
    expect((await fake.listImages({})).images).toHaveLength(1);
  });

  it('answers ImageStatus of a missing image with a null image, not an error', async () => {
    const fake = new FakeImageService();
    await expect(fake.imageStatus({ image: { image: 'nope' } })).resolves.toEqual({ image: null, info: {} });
  });

  it('requires the right credentials for a protected remote image', async () => {
    const fake = new FakeImageService({ pullAnything: false });
    fake.addRemoteImage({ ref: '127.0.0.1:5001/kubelet-ts/busybox:private', auth: { username: 'u', password: 'p' } });
    await expect(fake.pullImage({ image: { image: '127.0.0.1:5001/kubelet-ts/busybox:private' } })).rejects.toThrow(/401 Unauthorized/);
    await expect(
      fake.pullImage({ image: { image: '127.0.0.1:5001/kubelet-ts/busybox:private' }, auth: { username: 'u', password: 'wrong' } }),
    ).rejects.toThrow(/401/);
    const auth = Buffer.from('u:p').toString('base64');
    await expect(fake.pullImage({ image: { image: '127.0.0.1:5001/kubelet-ts/busybox:private' }, auth: { auth } })).resolves.toHaveProperty(
      'imageRef',
    );
    await expect(fake.pullImage({ image: { image: 'unknown/image' } })).rejects.toThrow(/not found/);
  });

  it('removes every tag of an image and is idempotent', async () => {
    const fake = new FakeImageService();
    const id = fake.addImage({ ref: 'a:1', id: 'sha256:1111' });
    fake.addImage({ ref: 'b:2', id: 'sha256:1111' });
    expect(fake.getImage('b:2')?.repoTags).toEqual(['docker.io/library/a:1', 'docker.io/library/b:2']);
    await fake.removeImage({ image: { image: 'a:1' } });
    expect(fake.hasImage('b:2')).toBe(false);
    expect(fake.hasImage(id)).toBe(false);
    await expect(fake.removeImage({ image: { image: 'a:1' } })).resolves.toEqual({});
  });

  it('reports image filesystem usage as the sum of image sizes', async () => {
    const fake = new FakeImageService({
      images: [
        { ref: 'a', size: 100 },
        { ref: 'b', size: 50 },
      ],
    });
    const info = await fake.imageFsInfo({});
    expect(info.imageFilesystems[0]?.usedBytes?.value).toBe('150');
  });
});
