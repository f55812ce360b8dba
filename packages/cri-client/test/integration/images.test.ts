import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { env, newClient, useRuntimeSuite, waitFor } from './helpers.js';

// The registry images share their image ID with the imported localhost/kubelet-ts/* images, and CRI RemoveImage
// removes every tag of an image ID: removing a pulled registry tag through CRI would also delete the shared test
// images. So pulled tags are cleaned up with `ctr images rm` (one name only), and RemoveImage is tested on an image
// built here with a unique ID.

function ctr(...args: string[]): string {
  const socket = env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, '');
  return execFileSync(process.env.KUBELET_TS_CTR ?? 'ctr', ['-a', socket, '-n', 'k8s.io', ...args], { encoding: 'utf8' });
}

/** Removes only these image names (and the digest names a pull adds), never other tags of the same ID. */
function removeImageNames(repo: string): void {
  const names = ctr('images', 'ls', '-q')
    .split('\n')
    .filter((name) => name === repo || name.startsWith(`${repo.replace(/:[^:/]+$/, '')}@`));
  if (names.length > 0) ctr('images', 'rm', ...names);
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Builds and imports a one-layer image whose config (and so image ID) is unique to this run. */
function importUniqueImage(name: string, dir: string): void {
  const layout = path.join(dir, 'layout');
  const blobs = path.join(layout, 'blobs', 'sha256');
  fs.mkdirSync(blobs, { recursive: true });
  const rootfs = path.join(dir, 'rootfs');
  fs.mkdirSync(rootfs);
  fs.writeFileSync(path.join(rootfs, 'marker'), `${name}\n`);
  const layerTar = path.join(dir, 'layer.tar');
  execFileSync('tar', ['-cf', layerTar, '-C', rootfs, 'marker']);
  const layer = fs.readFileSync(layerTar);
  const layerDigest = sha256(layer);
  fs.writeFileSync(path.join(blobs, layerDigest), layer);
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const config = JSON.stringify({
    architecture: arch,
    os: 'linux',
    config: { Cmd: ['/marker'], Labels: { 'kubelet-ts.test/unique': randomUUID() } },
    rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
  });
  const configDigest = sha256(config);
  fs.writeFileSync(path.join(blobs, configDigest), config);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${configDigest}`, size: Buffer.byteLength(config) },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: `sha256:${layerDigest}`, size: layer.length }],
  });
  const manifestDigest = sha256(manifest);
  fs.writeFileSync(path.join(blobs, manifestDigest), manifest);
  fs.writeFileSync(path.join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  fs.writeFileSync(
    path.join(layout, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: `sha256:${manifestDigest}`,
          size: Buffer.byteLength(manifest),
          annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name.slice(name.lastIndexOf(':') + 1) },
        },
      ],
    }),
  );
  const archive = path.join(dir, 'image.tar');
  execFileSync('tar', ['-cf', archive, '-C', layout, '.']);
  ctr('images', 'import', archive);
}

describe('CRI v1 against the real containerd: images', () => {
  const suite = useRuntimeSuite({ connect: newClient });

  it('pulls from the loopback registry without credentials and reports the image', async () => {
    const ref = `${env('KUBELET_TS_REGISTRY')}/kubelet-ts/http-echo:test`;
    const presentBefore = (await suite.client.image.imageStatus({ image: { image: ref } })).image !== null;
    if (!presentBefore) suite.cleanup.add(() => removeImageNames(ref));
    const { imageRef } = await suite.client.image.pullImage({ image: { image: ref } });
    expect(imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    const image = (await suite.client.image.imageStatus({ image: { image: ref } })).image;
    expect(image?.id).toBe(imageRef);
    expect(image?.repoTags).toContain(ref);
    expect(image?.repoDigests.some((d) => d.startsWith(`${env('KUBELET_TS_REGISTRY')}/kubelet-ts/http-echo@sha256:`))).toBe(true);
    expect(Number(image?.size)).toBeGreaterThan(0);
    const listed = await suite.client.image.listImages({});
    expect(listed.images.find((i) => i.id === imageRef)?.repoTags).toContain(ref);
  });

  it('pulls from the authenticated registry with credentials, and fails clearly without or with wrong ones', async () => {
    const ref = `${env('KUBELET_TS_AUTH_REGISTRY')}/kubelet-ts/busybox:private`;
    const presentBefore = (await suite.client.image.imageStatus({ image: { image: ref } })).image !== null;
    if (presentBefore) removeImageNames(ref);
    suite.cleanup.add(() => removeImageNames(ref));

    const anonymous = await suite.client.image.pullImage({ image: { image: ref } }).catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ method: 'runtime.v1.ImageService/PullImage' });
    // containerd 1.6 passes the registry's 401 on; containerd 2 says it had no credentials to offer.
    expect((anonymous as Error).message).toMatch(/401 Unauthorized|no basic auth credentials/);
    const wrong = await suite.client.image
      .pullImage({ image: { image: ref }, auth: { username: env('KUBELET_TS_REGISTRY_USER'), password: 'wrong' } })
      .catch((e: unknown) => e);
    expect((wrong as Error).message).toMatch(/401 Unauthorized/);
    expect((await suite.client.image.imageStatus({ image: { image: ref } })).image).toBeNull();

    const { imageRef } = await suite.client.image.pullImage({
      image: { image: ref },
      auth: { username: env('KUBELET_TS_REGISTRY_USER'), password: env('KUBELET_TS_REGISTRY_PASSWORD') },
    });
    expect((await suite.client.image.imageStatus({ image: { image: ref } })).image?.id).toBe(imageRef);
  });

  it('removes an image with every tag, idempotently, and answers ImageStatus of a missing image with null', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-image-'));
    suite.cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
    const name = `localhost/kubelet-ts/unique-${randomUUID().slice(0, 8)}:v1`;
    importUniqueImage(name, dir);
    suite.cleanup.add(() => removeImageNames(name));
    // containerd 2's CRI image store learns of images imported through ctr from containerd's events,
    // asynchronously: poll for what ctr did instead of reading once.
    const image = await waitFor(
      `CRI to see ${name}`,
      async () => (await suite.client.image.imageStatus({ image: { image: name } })).image ?? undefined,
      30_000,
      200,
    );
    expect(image.repoTags).toEqual([name]);
    const secondTag = name.replace(':v1', ':v2');
    ctr('images', 'tag', name, secondTag);
    suite.cleanup.add(() => removeImageNames(secondTag));
    const tagged = await waitFor(
      `CRI to see the tag ${secondTag}`,
      async () => {
        const found = (await suite.client.image.imageStatus({ image: { image: image.id } })).image;
        return found !== null && found !== undefined && found.repoTags.length === 2 ? found : undefined;
      },
      30_000,
      200,
    );
    expect(tagged.repoTags.sort()).toEqual([name, secondTag].sort());

    await suite.client.image.removeImage({ image: { image: name } });
    expect((await suite.client.image.imageStatus({ image: { image: secondTag } })).image).toBeNull();
    expect((await suite.client.image.listImages({})).images.some((i) => i.id === image.id)).toBe(false);
    await expect(suite.client.image.removeImage({ image: { image: name } })).resolves.toEqual({});
    // The shared test images are untouched.
    expect((await suite.client.image.imageStatus({ image: { image: env('KUBELET_TS_BUSYBOX_IMAGE') } })).image).not.toBeNull();
  });

  it('reports the image filesystem usage', async () => {
    // containerd measures snapshotter usage in the background (every 10 s): a fresh containerd reports 0 at first.
    const fsInfo = await waitFor(
      'a measured image filesystem',
      async () => {
        const first = (await suite.client.image.imageFsInfo({})).imageFilesystems[0];
        return Number(first?.usedBytes?.value ?? '0') > 0 ? first : undefined;
      },
      30_000,
      500,
    );
    expect(fsInfo.fsId?.mountpoint).toContain(env('KUBELET_TS_RUNTIME_DIR'));
    expect(Number(fsInfo.usedBytes?.value ?? '0')).toBeGreaterThan(0);
    expect(BigInt(fsInfo.timestamp ?? '0')).toBeGreaterThan(0n);
  });
});
