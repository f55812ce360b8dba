// Fuzzing of what a CSI driver answers: NodeGetInfo, NodeGetCapabilities, NodeStage/Unstage,
// NodePublish/Unpublish and NodeGetVolumeStats replies of random bytes or random but decodable
// messages, the versions a driver registers with, and the volume manager over a junk driver next to a
// good one. The property: a typed result, or a VolumeError with a code whose message says what failed
// (the method's response field, the driver at registration, the volume at SetUp); other volumes mount.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { newPod } from '@kubelet-ts/api/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText } from '@kubelet-ts/test-support';
import { createCsiNodeClient, createStaticCsiDriverRegistry } from './csi-client.js';
import type { CsiNodeClient } from './csi-client.js';
import { createCsiPluginRegistry, highestSupportedCsiVersion } from './csi-registration.js';
import { VolumeError } from './errors.js';
import { makeTempDir } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createFakeCsiNodeServer, csiStatus, FakeMounter } from './testing/index.js';
import type { FakeCsiNodeServer } from './testing/index.js';
import { createVolumeManager } from './volume-manager.js';

const TIMEOUT_MS = fuzzRuns(30_000);
const GOOD = 'good.csi.kubelet-ts.test';
const JUNK = 'junk.csi.kubelet-ts.test';

let tmp: TempDir;
let good: FakeCsiNodeServer;
let junk: FakeCsiNodeServer;
let client: CsiNodeClient;

beforeAll(async () => {
  tmp = await makeTempDir('vm-csi-fuzz-');
  await mkdir(join(tmp.path, 'backing'));
  const mounter = new FakeMounter();
  good = createFakeCsiNodeServer({
    socketPath: join(tmp.path, 'good.sock'),
    mounter,
    backingDir: join(tmp.path, 'backing'),
    nodeId: 'node-1',
  });
  junk = createFakeCsiNodeServer({
    socketPath: join(tmp.path, 'junk.sock'),
    mounter,
    backingDir: join(tmp.path, 'backing'),
    nodeId: 'node-1',
  });
  await good.start();
  await junk.start();
  client = createCsiNodeClient({ endpoint: junk.endpoint, timeoutMs: 5_000 });
});

afterAll(async () => {
  client.close();
  await good.stop();
  await junk.stop();
  await tmp.cleanup();
});

const METHODS = [
  'NodeGetInfo',
  'NodeGetCapabilities',
  'NodeStageVolume',
  'NodeUnstageVolume',
  'NodePublishVolume',
  'NodeUnpublishVolume',
  'NodeGetVolumeStats',
] as const;
type Method = (typeof METHODS)[number];

const callClient = (method: Method): Promise<unknown> => {
  switch (method) {
    case 'NodeGetInfo':
      return client.nodeGetInfo();
    case 'NodeGetCapabilities':
      return client.nodeGetCapabilities();
    case 'NodeStageVolume':
      return client.nodeStageVolume({ volumeId: 'v', stagingTargetPath: '/s' });
    case 'NodeUnstageVolume':
      return client.nodeUnstageVolume({ volumeId: 'v', stagingTargetPath: '/s' });
    case 'NodePublishVolume':
      return client.nodePublishVolume({ volumeId: 'v', targetPath: '/t' });
    case 'NodeUnpublishVolume':
      return client.nodeUnpublishVolume({ volumeId: 'v', targetPath: '/t' });
    case 'NodeGetVolumeStats':
      return client.nodeGetVolumeStats({ volumeId: 'v', volumePath: '/p' });
  }
};

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  hostileText().filter((t) => t.length < 64 * 1024),
  fc.constant(''),
);
const int64 = fc.oneof(
  fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const enumName = (names: string[]) => fc.oneof(fc.constantFrom(...names), fc.integer({ min: -3, max: 1000 }));
/** Decodable replies per method: fields missing or empty, odd numbers, unknown enum values, huge maps. */
const decodable: Record<Method, fc.Arbitrary<unknown>> = {
  NodeGetInfo: fc.record(
    {
      nodeId: text,
      maxVolumesPerNode: int64,
      accessibleTopology: fc.option(fc.record({ segments: fc.dictionary(text, text, { maxKeys: 50 }) }), { nil: null }),
    },
    { requiredKeys: [] },
  ),
  NodeGetCapabilities: fc.record({
    capabilities: fc.array(
      fc.record(
        { rpc: fc.option(fc.record({ type: enumName(['STAGE_UNSTAGE_VOLUME', 'GET_VOLUME_STATS', 'UNKNOWN']) }), { nil: null }) },
        { requiredKeys: [] },
      ),
      { maxLength: 5 },
    ),
  }),
  NodeStageVolume: fc.constant({}),
  NodeUnstageVolume: fc.constant({}),
  NodePublishVolume: fc.constant({}),
  NodeUnpublishVolume: fc.constant({}),
  NodeGetVolumeStats: fc.record(
    {
      usage: fc.array(
        fc.record({ available: int64, total: int64, used: int64, unit: enumName(['UNKNOWN', 'BYTES', 'INODES']) }, { requiredKeys: [] }),
        {
          maxLength: 3,
        },
      ),
      volumeCondition: fc.option(fc.record({ abnormal: fc.boolean(), message: text }), { nil: null }),
    },
    { requiredKeys: [] },
  ),
};

async function expectResultOrVolumeError(pending: Promise<unknown>): Promise<unknown> {
  try {
    return await pending;
  } catch (err) {
    if (!(err instanceof VolumeError)) throw new Error(`rejected with ${String(err)}, not a VolumeError`);
    expect(['CSI_FAILED', 'INVALID_OBJECT', 'PLUGIN_REGISTRATION_FAILED']).toContain(err.code);
    expect(err.message.length).toBeGreaterThan(0);
    return err;
  }
}

describe('fuzzing CSI driver replies', () => {
  it(
    'answers every Node RPC with a typed result or a coded VolumeError, whatever the driver replies',
    async () => {
      const reply = fc.constantFrom(...METHODS).chain((method) =>
        fc.record({
          method: fc.constant(method),
          reply: fc.oneof(
            hostileBytes().map((b) => Buffer.from(b)),
            decodable[method],
            fc.constant(csiStatus(grpc.status.INTERNAL, 'driver broke')),
          ),
        }),
      );
      await fuzz(
        'volume-manager: CSI Node RPC replies (info, capabilities, stage, publish, stats)',
        reply,
        async ({ method, reply: answer }) => {
          junk.handlers[method] = () => {
            if (answer instanceof Error) throw answer;
            return answer;
          };
          const result = await expectResultOrVolumeError(callClient(method));
          if (result instanceof VolumeError) {
            if (result.code === 'INVALID_OBJECT') expect(result.message).toContain(`CSI ${method} response:`);
            return;
          }
          if (method === 'NodeGetInfo') {
            const info = result as { nodeId: string; maxVolumesPerNode: number; topology: object };
            expect(info.nodeId).not.toBe('');
            expect(Number.isFinite(info.maxVolumesPerNode)).toBe(true);
          }
          if (method === 'NodeGetCapabilities') for (const c of result as unknown[]) expect(typeof c).toBe('string');
          if (method === 'NodeGetVolumeStats') {
            for (const u of (result as { usage: Array<Record<string, unknown>> }).usage) {
              for (const k of ['available', 'total', 'used']) expect(Number.isFinite(u[k])).toBe(true);
            }
          }
        },
        { runs: 100 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'registers a driver only with a 1.x version and a NodeGetInfo that validates, naming the driver otherwise',
    async () => {
      const versions = fc.array(fc.oneof(text, fc.constantFrom('1.0.0', 'v1.2.3', '2.0.0', '1', '0.3.0', '1.x', '01.0.0', '1.0.0-rc.1')), {
        maxLength: 4,
      });
      await fuzz(
        'volume-manager: CSI driver registration (versions, NodeGetInfo)',
        fc.record({
          versions,
          info: fc.oneof(
            hostileBytes().map((b) => Buffer.from(b)),
            decodable.NodeGetInfo,
          ),
        }),
        async ({ versions: vs, info }) => {
          junk.handlers['NodeGetInfo'] = () => info;
          const drivers = createCsiPluginRegistry({ nodeGetInfoTimeoutMs: 5_000 });
          const outcome = await expectResultOrVolumeError(drivers.registerPlugin(JUNK, junk.endpoint, vs));
          if (outcome instanceof VolumeError) {
            expect(drivers.get(JUNK)).toBeUndefined();
            if (outcome.message.includes('NodeGetInfo failed')) expect(outcome.message).toContain(`CSI driver ${JUNK}`);
          } else {
            expect(/^v?1(\.|$)/.test(highestSupportedCsiVersion(vs))).toBe(true);
            expect(drivers.get(JUNK)?.endpoint).toBe(junk.endpoint);
          }
        },
        { runs: 50 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'fails SetUp of a volume on a junk driver with the volume named, and mounts the good driver’s volume',
    async () => {
      let n = 0;
      await fuzz(
        'volume-manager: CSI NodePublishVolume replies during SetUp',
        fc.oneof(
          hostileBytes().map((b) => Buffer.from(b)),
          fc.constant(csiStatus(grpc.status.INTERNAL, 'driver broke')),
        ),
        async (answer) => {
          junk.handlers['NodePublishVolume'] = () => {
            if (answer instanceof Error) throw answer;
            return answer;
          };
          const vm = createVolumeManager({
            rootDir: join(tmp.path, 'root'),
            mounter: new FakeMounter(),
            waitTimeoutMs: 0,
            csiDrivers: createStaticCsiDriverRegistry({ [GOOD]: good.endpoint, [JUNK]: junk.endpoint }),
          });
          const id = n++;
          const bad = newPod({ uid: `uid-bad-${id}`, spec: { volumes: [{ name: 'data', csi: { driver: JUNK } }] } });
          const fine = newPod({ uid: `uid-good-${id}`, spec: { volumes: [{ name: 'data', csi: { driver: GOOD } }] } });
          const [badResult, goodResult] = await Promise.allSettled([vm.waitForAttachAndMount(bad), vm.waitForAttachAndMount(fine)]);
          expect(goodResult.status).toBe('fulfilled');
          if (badResult.status === 'rejected') {
            expect(String((badResult.reason as Error).message)).toContain('MountVolume.SetUp failed for volume "data"');
          }
          await vm.teardownPod(bad.metadata.uid).catch(() => undefined);
          await vm.teardownPod(fine.metadata.uid);
        },
        { runs: 25 },
      );
    },
    TIMEOUT_MS,
  );
});
