// Fuzzing of the CRI replies the summary is built from: ListPodSandbox, ListContainers,
// ListContainerStats and ImageFsInfo answers carrying junk items next to a good pod's (in cri-client's
// output form: every field present, int64 as decimal strings, unknown enum values as numbers). The
// property: the summary comes out with the good pod and its container, or — only for an ImageFsInfo
// without an image filesystem, as upstream — a StatsError of code RUNTIME naming imageFs.
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import type { ContainerStats, ImageFsInfoResponse, PodSandbox, Container } from '@kubelet-ts/cri-client';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { fc, fuzz, fuzzRuns, hostileText } from '@kubelet-ts/test-support';
import { StatsError, createSummaryProvider } from './index.js';
import { newFakeNodeHost } from './testing/index.js';

const TIMEOUT_MS = fuzzRuns(20_000);
const START = Date.UTC(2026, 0, 1);
const GiB = 1024 ** 3;
const IMAGEFS = '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs';

const int64 = fc.oneof(
  fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808', '1700000000123456789'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const uint64 = fc.oneof(
  fc.constantFrom('0', '18446744073709551615', '9007199254740993'),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
);
const u64Value = fc.option(fc.record({ value: uint64 }), { nil: null });
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  hostileText().filter((t) => t.length < 2048),
  fc.constantFrom('uid-1', 'web', 'app', ''),
);
const stringMap = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('io.kubernetes.pod.uid', 'io.kubernetes.container.name')),
  text,
  {
    maxKeys: 4,
  },
);
const enumValue = fc.oneof(
  fc.constantFrom('CONTAINER_RUNNING', 'CONTAINER_EXITED', 'SANDBOX_READY', 'SANDBOX_NOTREADY'),
  fc.integer({ min: -3, max: 1_000_000 }),
);

const sandbox = fc
  .record({
    id: text,
    metadata: fc.option(fc.record({ name: text, uid: text, namespace: text, attempt: fc.integer() }), { nil: null }),
    state: enumValue,
    createdAt: int64,
    labels: stringMap,
    annotations: stringMap,
    runtimeHandler: text,
  })
  .map((s) => s as unknown as PodSandbox);
const container = fc
  .record({
    id: text,
    podSandboxId: text,
    metadata: fc.option(fc.record({ name: text, attempt: fc.nat() }), { nil: null }),
    image: fc.constant(null),
    imageRef: text,
    state: enumValue,
    createdAt: int64,
    labels: stringMap,
    annotations: stringMap,
    imageId: text,
  })
  .map((c) => c as unknown as Container);
const fsUsage = fc.record({
  timestamp: int64,
  fsId: fc.option(fc.record({ mountpoint: fc.oneof(text, fc.constant(IMAGEFS)) }), { nil: null }),
  usedBytes: u64Value,
  inodesUsed: u64Value,
});
const containerStats = (ids: fc.Arbitrary<string>) =>
  fc
    .record({
      attributes: fc.option(fc.record({ id: ids, metadata: fc.constant(null), labels: stringMap, annotations: stringMap }), { nil: null }),
      cpu: fc.option(fc.record({ timestamp: int64, usageCoreNanoSeconds: u64Value, usageNanoCores: u64Value }), { nil: null }),
      memory: fc.option(
        fc.record({
          timestamp: int64,
          workingSetBytes: u64Value,
          availableBytes: u64Value,
          usageBytes: u64Value,
          rssBytes: u64Value,
          pageFaults: u64Value,
          majorPageFaults: u64Value,
        }),
        { nil: null },
      ),
      writableLayer: fc.option(fsUsage, { nil: null }),
      swap: fc.constant(null),
    })
    .map((s) => s as unknown as ContainerStats);

interface Junk {
  sandboxes: PodSandbox[];
  containers: Container[];
  stats: ContainerStats[];
  imageFs: ImageFsInfoResponse | undefined;
}

describe('fuzzing the CRI replies of the summary', () => {
  it(
    'builds the summary with the good pod whatever junk the runtime lists next to it',
    async () => {
      const clock = new FakeClock(START);
      const host = newFakeNodeHost({ rootDir: '/var/lib/kubelet' });
      host
        .mkdir(IMAGEFS)
        .setStatfs(
          '/var/lib/containerd',
          { bsize: 4096, blocks: (50 * GiB) / 4096, bfree: (20 * GiB) / 4096, bavail: (20 * GiB) / 4096, files: 500_000, ffree: 400_000 },
          { device: 2 },
        );
      const cri = createFakeCriClient({ clock, image: { imageFsMountpoint: IMAGEFS, images: [{ ref: 'busybox', size: 5_000_000 }] } });
      const pod = newPod({ name: 'web', namespace: 'default', uid: 'uid-1', containers: [{ name: 'app' }] });
      const sandboxConfig = {
        metadata: { name: 'web', namespace: 'default', uid: 'uid-1', attempt: 0 },
        labels: { 'io.kubernetes.pod.uid': 'uid-1' },
      };
      const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig });
      const { containerId } = await cri.runtime.createContainer({
        podSandboxId,
        config: {
          metadata: { name: 'app', attempt: 0 },
          image: { image: 'busybox' },
          labels: { 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.container.name': 'app' },
        },
        sandboxConfig,
      });
      await cri.runtime.startContainer({ containerId });

      let junk: Junk = { sandboxes: [], containers: [], stats: [], imageFs: undefined };
      const runtime = {
        listPodSandbox: async (r: Parameters<typeof cri.runtime.listPodSandbox>[0]) => {
          const reply = await cri.runtime.listPodSandbox(r);
          return { items: [...junk.sandboxes, ...reply.items] };
        },
        listContainers: async (r: Parameters<typeof cri.runtime.listContainers>[0]) => {
          const reply = await cri.runtime.listContainers(r);
          return { containers: [...junk.containers, ...reply.containers] };
        },
        listContainerStats: async (r: Parameters<typeof cri.runtime.listContainerStats>[0]) => {
          const reply = await cri.runtime.listContainerStats(r);
          return { stats: [...junk.stats, ...reply.stats] };
        },
        podSandboxStatus: cri.runtime.podSandboxStatus.bind(cri.runtime),
      };
      const image = { imageFsInfo: async (r: object) => junk.imageFs ?? cri.image.imageFsInfo(r) };
      const provider = createSummaryProvider({
        nodeName: 'node-1',
        rootDir: '/var/lib/kubelet',
        podLogsDir: '/var/log/pods',
        runtimeService: runtime as never,
        imageService: image as never,
        getPods: () => [pod],
        host,
        clock,
      });

      const cases = fc.record({
        sandboxes: fc.array(sandbox, { maxLength: 3 }),
        containers: fc.array(container, { maxLength: 3 }),
        stats: fc.array(containerStats(fc.oneof(text, fc.constant(containerId))), { maxLength: 3 }),
        imageFs: fc.option(
          fc.record({ imageFilesystems: fc.array(fsUsage, { maxLength: 2 }), containerFilesystems: fc.array(fsUsage, { maxLength: 2 }) }),
          { nil: undefined, freq: 3 },
        ),
      });
      await fuzz(
        'stats: CRI ListPodSandbox / ListContainers / ListContainerStats / ImageFsInfo replies (summary)',
        cases,
        async (c) => {
          junk = c as Junk;
          await clock.advance(1_000);
          let summary;
          try {
            summary = await provider.get({ updateStats: true });
          } catch (err) {
            if (!StatsError.is(err, 'RUNTIME') || c.imageFs === undefined || c.imageFs.imageFilesystems.length > 0) throw err;
            expect((err as Error).message).toContain('imageFs');
            return;
          }
          const web = summary.pods.find((p) => p.podRef.uid === 'uid-1');
          expect(web?.containers.map((x) => x.name)).toContain('app');
          JSON.stringify(summary); // what the /stats/summary endpoint does with it
        },
        { runs: 150 },
      );
    },
    TIMEOUT_MS,
  );
});
