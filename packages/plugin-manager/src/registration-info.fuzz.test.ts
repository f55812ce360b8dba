// Fuzzing of plugin registration: what a plugin's registration socket answers to GetInfo (random
// types, names, endpoints and versions; bytes that are not a PluginInfo; no answer at all). The
// property: the plugin is registered only when its handler accepts it, otherwise refused with an error
// naming its socket (and told so when it can be); the watcher never throws, and a good plugin next to
// it is registered and stays so.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText } from '@kubelet-ts/test-support';
import { registrationService } from './internal/registration-loader.js';
import { createPluginWatcher, pluginsRegistryDir } from './plugin-watcher.js';
import type { PluginWatcher } from './plugin-watcher.js';
import { FakePluginHandler, createFakeRegistrationServer } from './testing/index.js';
import type { FakeRegistrationServer } from './testing/index.js';

const TIMEOUT_MS = fuzzRuns(30_000);
const GOOD = 'good.csi.kubelet-ts.test';

let tmp: string;
let registry: string;
let good: FakeRegistrationServer;
let csi: FakePluginHandler;
let watcher: PluginWatcher;
const logger = new RecordingLogger();
let caseNumber = 0;

beforeAll(async () => {
  tmp = await mkdtemp(join(os.tmpdir(), 'pm-fuzz-'));
  registry = pluginsRegistryDir(join(tmp, 'root'));
  await mkdir(registry, { recursive: true });
  csi = new FakePluginHandler();
  // A short GetInfo deadline, so that a plugin that never answers costs 100 ms of the run.
  watcher = createPluginWatcher({
    dir: registry,
    handlers: { CSIPlugin: csi },
    clock: new FakeClock(),
    watch: false,
    getInfoTimeoutMs: 100,
    notifyTimeoutMs: 500,
    dialTimeoutMs: 1_000,
    logger,
  });
  good = createFakeRegistrationServer({ socketPath: join(registry, 'good-reg.sock'), name: GOOD, endpoint: join(tmp, 'good.sock') });
  await good.start();
  await watcher.sync();
});

afterAll(async () => {
  await good.stop();
  await rm(tmp, { recursive: true, force: true });
});

type Reply = { kind: 'info'; info: Record<string, unknown> } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'hang' } | { kind: 'error' };

interface Plugin {
  statuses: { pluginRegistered: boolean; error: string }[];
  stop(): Promise<void>;
}

/** A registration socket whose GetInfo answers `reply` (raw bytes as the response message as they are). */
async function startPlugin(socketPath: string, reply: Reply): Promise<Plugin> {
  const service = registrationService();
  const definition = Object.fromEntries(
    Object.entries(service).map(([name, d]) => {
      const encode = d.responseSerialize as (v: unknown) => Buffer;
      return [name, { ...d, responseSerialize: (v: unknown) => (Buffer.isBuffer(v) ? v : encode(v)) }];
    }),
  ) as unknown as grpc.ServiceDefinition;
  const statuses: Plugin['statuses'] = [];
  const hung: Array<() => void> = [];
  const server = new grpc.Server();
  server.addService(definition, {
    GetInfo: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => {
      if (reply.kind === 'info') callback(null, reply.info);
      else if (reply.kind === 'bytes') callback(null, Buffer.from(reply.bytes));
      else if (reply.kind === 'error') callback({ code: grpc.status.INTERNAL, details: 'plugin broke' } as grpc.ServiceError, null);
      else hung.push(() => callback(null, { type: 'CSIPlugin', name: 'late', endpoint: '', supportedVersions: [] }));
    },
    NotifyRegistrationStatus: (
      call: grpc.ServerUnaryCall<{ pluginRegistered: boolean; error: string }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      statuses.push({ pluginRegistered: call.request.pluginRegistered, error: call.request.error });
      callback(null, {});
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err === null ? resolve() : reject(err))),
  );
  return {
    statuses,
    async stop() {
      for (const answer of hung) answer();
      server.forceShutdown();
      await rm(socketPath, { force: true });
    },
  };
}

const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  hostileText().filter((t) => t.length < 64 * 1024),
  fc.constantFrom('', 'CSIPlugin', 'DevicePlugin', '../../etc/passwd', '/run/x.sock', 'unix:///tmp/x.sock', '\0'),
);
const info = fc.record(
  {
    type: fc.oneof(fc.constant('CSIPlugin'), text),
    name: text,
    endpoint: text,
    supportedVersions: fc.array(fc.oneof(text, fc.constantFrom('1.0.0', 'v1', '')), { maxLength: 5 }),
  },
  { requiredKeys: [] },
);
const reply: fc.Arbitrary<Reply> = fc.oneof(
  { weight: 6, arbitrary: info.map((i) => ({ kind: 'info' as const, info: i })) },
  { weight: 3, arbitrary: hostileBytes().map((bytes) => ({ kind: 'bytes' as const, bytes })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hang' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'error' as const }) },
);

describe('fuzzing plugin registration', () => {
  it(
    'registers or refuses each plugin by its GetInfo answer, and keeps serving the others',
    async () => {
      await fuzz(
        'plugin-manager: registration socket GetInfo replies',
        fc.record({ reply, validateError: fc.option(text, { nil: undefined }) }),
        async ({ reply: answer, validateError }) => {
          const socketPath = join(registry, `fuzz-${caseNumber++}-reg.sock`);
          const plugin = await startPlugin(socketPath, answer);
          csi.validateError = validateError === undefined ? undefined : new Error(validateError);
          try {
            await watcher.sync(); // must not throw, whatever the plugin said
            const mine = watcher.getRegisteredPlugins().find((p) => p.socketPath === socketPath);
            const failure = logger.find('Plugin registration failed').find((r) => r.fields['path'] === socketPath);
            if (mine !== undefined) {
              // Only a CSIPlugin its handler accepted, with what GetInfo said (the socket as endpoint when it said none).
              expect(mine.type).toBe('CSIPlugin');
              expect(csi.validateError).toBeUndefined();
              expect(plugin.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
            } else {
              expect(failure).toBeDefined();
              expect(String(failure?.fields['err'])).toContain('RegisterPlugin error --');
              expect(String(failure?.fields['err'])).toMatch(
                socketPath.includes('\n') ? /./ : new RegExp(`socket ${escape(socketPath)}|validation failed|no handler`),
              );
              for (const s of plugin.statuses)
                expect(s).toMatchObject({ pluginRegistered: false, error: expect.stringContaining('RegisterPlugin error --') });
            }
            expect(watcher.getRegisteredPlugins().map((p) => p.name)).toContain(GOOD);
          } finally {
            csi.validateError = undefined;
            await plugin.stop();
            await watcher.sync();
            logger.records.splice(0);
          }
          expect(watcher.getRegisteredPlugins().map((p) => p.socketPath)).not.toContain(socketPath);
        },
        { runs: 120 },
      );
    },
    TIMEOUT_MS,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
