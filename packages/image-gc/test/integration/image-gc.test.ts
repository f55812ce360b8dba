/**
 * Image GC against the real containerd of the runtime test environment: the sandbox image comes from
 * containerd's verbose Status, usage from statfs of the mountpoint CRI ImageFsInfo reports, an image a
 * container uses (even one never started) is kept, and once the container is gone it is removed.
 * Every image present before the test is passed as pinned, so nothing else on the shared runtime is touched.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import { Cleanup, removeCgroupTree, removeRuntimePod, runtimeEnv } from '@kubelet-ts/test-support';
import { createImageGC } from '../../src/index.js';

let cri: CriClient;
const cleanup = new Cleanup();

beforeAll(() => {
  cri = createCriClient({ endpoint: runtimeEnv('KUBELET_TS_CRI_ENDPOINT') });
});

afterAll(async () => {
  await cleanup.run();
  cri.close();
});

test('on containerd: the sandbox image and real disk usage are read; an image in use is kept, then removed once unused', async () => {
  // The registry copy of http-echo has its own image ID (not the imported base image's).
  const ref = `${runtimeEnv('KUBELET_TS_REGISTRY')}/kubelet-ts/http-echo:test`;
  const hadIt = (await cri.image.imageStatus({ image: { image: ref } })).image !== null;
  // Another suite may have left this image behind without names (only its ID reference): learn the ID
  // with a pull, then remove it by ID so that the test starts without it.
  const { imageRef: knownId } = await cri.image.pullImage({ image: { image: ref } });
  await cri.image.removeImage({ image: { image: knownId } }, { ignoreNotFound: true });
  cleanup.add(async () => {
    if (hadIt) await cri.image.pullImage({ image: { image: ref } });
  });
  const before = (await cri.image.listImages({})).images.map((i) => i.id);
  const { imageRef } = await cri.image.pullImage({ image: { image: ref } });
  cleanup.add(() => cri.image.removeImage({ image: { image: imageRef } }, { ignoreNotFound: true }));
  expect(before).not.toContain(imageRef);

  // A created (never started) container in a host-network sandbox uses it.
  const uid = randomUUID();
  const cgroupParent = `${runtimeEnv('KUBELET_TS_CGROUP_ROOT')}/image-gc-${uid}`;
  cleanup.add(() => removeCgroupTree(cgroupParent));
  cleanup.add(() => removeRuntimePod(cri.runtime, uid));
  const labels = { 'io.kubernetes.pod.uid': uid };
  const sandboxConfig = {
    metadata: { name: `image-gc-${uid.slice(0, 8)}`, namespace: 'image-gc-test', uid },
    labels,
    linux: { cgroupParent, securityContext: { namespaceOptions: { network: 'NODE' as const } } },
  };
  const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig });
  const { containerId } = await cri.runtime.createContainer({
    podSandboxId,
    config: { metadata: { name: 'c' }, image: { image: ref }, labels, command: ['/http-echo'] },
    sandboxConfig,
  });

  const gc = createImageGC({
    imageService: cri.image,
    runtimeService: cri.runtime,
    // 100 %: no space-based removal from garbageCollect; minAge 0: deleteUnusedImages may take the new image at once
    policy: { highThresholdPercent: 100, lowThresholdPercent: 99, minAgeMs: 0 },
    pinnedImages: before,
  });

  const result = await gc.garbageCollect();
  const mountpoint = (await cri.image.imageFsInfo({})).imageFilesystems[0]?.fsId?.mountpoint ?? '';
  const s = await fs.statfs(mountpoint);
  const expected = 100 - Math.floor((s.bavail * 100) / s.blocks);
  expect(Math.abs((result.usagePercent ?? -1) - expected)).toBeLessThanOrEqual(1);
  expect(result.removed).toEqual([]);

  expect(gc.imageRecords().find((r) => r.id === imageRef)).toMatchObject({ inUse: true, pinned: false, repoTags: [ref] });
  // Without pinnedImages, only containerd's config (verbose Status: config.sandboxImage) protects pause; detection only.
  const detectOnly = createImageGC({ imageService: cri.image, runtimeService: cri.runtime });
  await detectOnly.detectImages();
  const pauseId = (await cri.image.imageStatus({ image: { image: runtimeEnv('KUBELET_TS_PAUSE_IMAGE') } })).image?.id;
  const records = detectOnly.imageRecords();
  // containerd 1.6 names its sandbox image in that config; containerd 2 no longer does, but marks the
  // image pinned (CRI Image.pinned), which protects it just the same.
  const containerd2 = process.env.KUBELET_TS_CONTAINERD === '2';
  expect(records.find((r) => r.id === pauseId)).toMatchObject({ pinned: true, inUse: !containerd2 });
  expect(records.filter((r) => r.pinned).map((r) => r.id)).toEqual([pauseId]);

  await gc.deleteUnusedImages();
  expect((await cri.image.imageStatus({ image: { image: ref } })).image?.id).toBe(imageRef);

  await cri.runtime.removeContainer({ containerId });
  await gc.deleteUnusedImages();
  expect((await cri.image.imageStatus({ image: { image: ref } })).image).toBeNull();
  // Nothing else was touched.
  const after = (await cri.image.listImages({})).images.map((i) => i.id);
  expect(after.sort()).toEqual([...before].sort());
});
