// Fuzzing of what the container runtime answers: a real gRPC server on a unix socket whose replies are
// random bytes (not protobuf, or protobuf of the wrong shape) or random but decodable messages (missing
// fields, huge strings, negative and huge timestamps, unknown enum values, deep label maps). The
// property: every call either resolves with a message in output form or rejects with a CriError whose
// code is a gRPC status name and whose message names the method; the client keeps working afterwards.
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText } from '@kubelet-ts/test-support';
import { createCriClient } from './client.js';
import type { CriClient } from './client.js';
import { CriError } from './errors.js';
import { createTestServer } from './internal/test-server.js';
import type { TestServer } from './internal/test-server.js';
import { IMAGE_SERVICE_METHODS, RUNTIME_SERVICE_METHODS, STREAMING_METHODS } from './services.js';

/** Per-test deadline, scaled with the long run's case count. */
const TIMEOUT_MS = fuzzRuns(20_000);

let server: TestServer;
let client: CriClient;

beforeAll(async () => {
  server = createTestServer();
  await server.start();
  client = createCriClient({ endpoint: server.endpoint, reconnectBackoff: { initialMs: 10, maxMs: 50 } });
});

afterAll(async () => {
  client.close();
  await server.stop();
});

const streaming = new Set<string>(STREAMING_METHODS);
const unary = [
  ...RUNTIME_SERVICE_METHODS.filter((m) => m !== 'version' && !streaming.has(m)).map((m) => ({
    service: 'RuntimeService' as const,
    method: m,
  })),
  ...IMAGE_SERVICE_METHODS.filter((m) => !streaming.has(m)).map((m) => ({ service: 'ImageService' as const, method: m })),
];
const streams = [...RUNTIME_SERVICE_METHODS, ...IMAGE_SERVICE_METHODS].filter((m) => streaming.has(m));

const rpcOf = (service: string, method: string): string => `runtime.v1.${service}/${method.charAt(0).toUpperCase()}${method.slice(1)}`;

type AnyCall = (request: unknown) => Promise<unknown>;
function call(service: 'RuntimeService' | 'ImageService', method: string): Promise<unknown> {
  const target = (service === 'RuntimeService' ? client.runtime : client.image) as unknown as Record<string, AnyCall>;
  return (target[method] as AnyCall)({});
}

/** The contract for one answer: a message object, or a CriError naming `rpc` with a gRPC status name. */
async function expectMessageOrCriError(rpc: string, pending: Promise<unknown>): Promise<void> {
  let outcome: { ok: true; value: unknown } | { ok: false; err: unknown };
  try {
    outcome = { ok: true, value: await pending };
  } catch (err) {
    outcome = { ok: false, err };
  }
  if (outcome.ok) {
    expect(typeof outcome.value).toBe('object');
    expect(outcome.value).not.toBeNull();
    return;
  }
  const err = outcome.err;
  if (!(err instanceof CriError))
    throw new Error(`${rpc}: rejected with a ${Object.prototype.toString.call(err)}, not a CriError: ${String(err)}`);
  expect(err.method).toBe(rpc);
  expect(err.message).toContain(rpc);
  expect(err.code).toMatch(/^[A-Z_]+$/);
}

/** After each case: a well-formed answer still comes through. */
async function expectStillWorking(): Promise<void> {
  server.handlers.listImages = () => ({ images: [{ id: 'sha256:1', repoTags: ['nginx:1'], size: '5' }] });
  // About once in a thousand garbage replies, the fake server (node's http2) answers the client's reset of
  // that stream with GOAWAY INTERNAL_ERROR, so that a call already on the session fails: as a coded
  // INTERNAL naming its method, and the next call reconnects. A Go runtime does not do this.
  const listed = await client.image.listImages({}).catch(async (err: unknown) => {
    if (!CriError.is(err, 'INTERNAL') || !err.message.includes('ListImages')) throw err;
    return client.image.listImages({});
  });
  expect(listed.images[0]?.id).toBe('sha256:1');
}

const int64 = fc.oneof(
  fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808', '18446744073709551615', '1700000000123456789'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  hostileText().filter((t) => t.length <= 64 * 1024),
  fc.integer({ min: 1, max: 256 * 1024 }).map((n) => 'x'.repeat(n)),
);
const labels = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), { maxKeys: 8 }),
  fc.integer({ min: 100, max: 2_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]))),
  fc.constant({ 'io.kubernetes.pod.uid': 'uid-1', 'io.kubernetes.pod.name': 'web', 'io.kubernetes.container.name': 'app' }),
);
/** An enum value: a name, a number the proto does not define, or a negative one. */
const enumValue = fc.oneof(
  fc.constantFrom('CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN', 'SANDBOX_READY', 'SANDBOX_NOTREADY'),
  fc.integer({ min: -5, max: 1_000_000 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const containerMessage = fc.record(
  {
    id: text,
    podSandboxId: text,
    metadata: maybe(fc.record({ name: text, attempt: fc.nat() })),
    image: maybe(fc.record({ image: text, userSpecifiedImage: text })),
    imageRef: text,
    state: enumValue,
    createdAt: int64,
    labels,
    annotations: labels,
  },
  { requiredKeys: [] },
);
const sandboxMessage = fc.record(
  {
    id: text,
    metadata: maybe(fc.record({ name: text, uid: text, namespace: text, attempt: fc.nat() })),
    state: enumValue,
    createdAt: int64,
    labels,
    annotations: labels,
    runtimeHandler: text,
  },
  { requiredKeys: [] },
);
const containerStatusMessage = fc.record(
  {
    id: text,
    metadata: maybe(fc.record({ name: text, attempt: fc.nat() })),
    state: enumValue,
    createdAt: int64,
    startedAt: int64,
    finishedAt: int64,
    exitCode: fc.integer(),
    image: maybe(fc.record({ image: text })),
    imageRef: text,
    reason: text,
    message: text,
    labels,
    annotations: labels,
    mounts: fc.array(fc.record({ containerPath: text, hostPath: text }, { requiredKeys: [] }), { maxLength: 3 }),
    logPath: text,
  },
  { requiredKeys: [] },
);
const sandboxStatusMessage = fc.record(
  {
    id: text,
    metadata: maybe(fc.record({ name: text, uid: text, namespace: text, attempt: fc.nat() })),
    state: enumValue,
    createdAt: int64,
    network: maybe(fc.record({ ip: text, additionalIps: fc.array(fc.record({ ip: text }), { maxLength: 3 }) }, { requiredKeys: [] })),
    labels,
    annotations: labels,
  },
  { requiredKeys: [] },
);
const fsUsage = fc.record(
  {
    timestamp: int64,
    fsId: maybe(fc.record({ mountpoint: text })),
    usedBytes: maybe(fc.record({ value: int64 })),
    inodesUsed: maybe(fc.record({ value: int64 })),
  },
  { requiredKeys: [] },
);

/** Decodable replies of the calls whose answers the kubelet reads most. */
const decodable = fc.oneof(
  fc.record({ method: fc.constant('listContainers'), reply: fc.record({ containers: fc.array(containerMessage, { maxLength: 4 }) }) }),
  fc.record({ method: fc.constant('listPodSandbox'), reply: fc.record({ items: fc.array(sandboxMessage, { maxLength: 4 }) }) }),
  fc.record({ method: fc.constant('containerStatus'), reply: fc.record({ status: maybe(containerStatusMessage) }, { requiredKeys: [] }) }),
  fc.record({ method: fc.constant('podSandboxStatus'), reply: fc.record({ status: maybe(sandboxStatusMessage) }, { requiredKeys: [] }) }),
  fc.record({
    method: fc.constant('imageFsInfo'),
    reply: fc.record({ imageFilesystems: fc.array(fsUsage, { maxLength: 3 }), containerFilesystems: fc.array(fsUsage, { maxLength: 3 }) }),
  }),
  fc.record({
    method: fc.constant('listContainerStats'),
    reply: fc.record({
      stats: fc.array(
        fc.record(
          {
            attributes: maybe(fc.record({ id: text, labels, annotations: labels })),
            cpu: maybe(fc.record({ timestamp: int64, usageCoreNanoSeconds: maybe(fc.record({ value: int64 })) })),
            memory: maybe(fc.record({ timestamp: int64, workingSetBytes: maybe(fc.record({ value: int64 })) })),
            writableLayer: maybe(fsUsage),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    }),
  }),
);

describe('fuzzing CRI responses', () => {
  it(
    'rejects a reply that is not the method’s message with a CriError naming the method',
    async () => {
      const cases = fc.record({ target: fc.constantFrom(...unary), bytes: hostileBytes() });
      await fuzz(
        'cri-client: CRI replies of random bytes (every unary method)',
        cases,
        async ({ target, bytes }) => {
          server.handlers[target.method] = () => Buffer.from(bytes);
          await expectMessageOrCriError(rpcOf(target.service, target.method), call(target.service, target.method));
          await expectStillWorking();
        },
        { runs: 110 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'ends a stream of garbage with a CriError naming the method',
    async () => {
      const cases = fc.record({ method: fc.constantFrom(...streams), items: fc.array(hostileBytes(), { minLength: 1, maxLength: 3 }) });
      await fuzz(
        'cri-client: CRI stream messages of random bytes',
        cases,
        async ({ method, items }) => {
          const service = (RUNTIME_SERVICE_METHODS as readonly string[]).includes(method) ? 'RuntimeService' : 'ImageService';
          server.handlers[method] = () => items.map((b) => Buffer.from(b));
          const target = (service === 'RuntimeService' ? client.runtime : client.image) as unknown as Record<
            string,
            (r: unknown) => AsyncIterable<unknown>
          >;
          const consume = async (): Promise<unknown> => {
            const seen: unknown[] = [];
            for await (const item of (target[method] as (r: unknown) => AsyncIterable<unknown>)({})) seen.push(item);
            return { seen };
          };
          await expectMessageOrCriError(rpcOf(service, method), consume());
          await expectStillWorking();
        },
        { runs: 40 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'decodes random but well-formed replies (missing fields, huge strings and maps, odd timestamps and enums) into output form',
    async () => {
      await fuzz(
        'cri-client: decodable junk CRI replies (list, status, stats, image fs)',
        decodable,
        async ({ method, reply }) => {
          server.handlers[method] = () => reply;
          const service: 'ImageService' | 'RuntimeService' = method === 'imageFsInfo' ? 'ImageService' : 'RuntimeService';
          let value: unknown;
          try {
            value = await call(service, method);
          } catch (err) {
            // Only an encoding the fake server itself refuses (a number where protobufjs wants a name) may fail, and as a CriError.
            await expectMessageOrCriError(rpcOf(service, method), Promise.reject(err));
            return;
          }
          const out = value as Record<string, unknown>;
          for (const list of ['containers', 'items', 'imageFilesystems', 'containerFilesystems', 'stats']) {
            if (list in out) expect(Array.isArray(out[list])).toBe(true);
          }
          const status = out['status'] as Record<string, unknown> | null | undefined;
          if (status !== undefined && status !== null) {
            expect(typeof status['createdAt']).toBe('string');
            expect(typeof status['labels']).toBe('object');
          }
          await expectStillWorking();
        },
        { runs: 40 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'refuses a Version reply of garbage or the wrong API version with a coded error for the caller’s method',
    async () => {
      await fuzz(
        'cri-client: Version replies (negotiation)',
        fc.oneof(
          hostileBytes().map((b) => Buffer.from(b)),
          fc.record(
            { version: text, runtimeName: text, runtimeVersion: text, runtimeApiVersion: fc.oneof(text, fc.constant('v1')) },
            { requiredKeys: [] },
          ),
        ),
        async (reply) => {
          const fresh = createCriClient({ endpoint: server.endpoint });
          try {
            server.handlers.version = () => reply;
            server.handlers.status = () => ({ status: { conditions: [] } });
            const pending = fresh.runtime.status({});
            const err = await pending.then(
              () => undefined,
              (e: unknown) => e,
            );
            // A runtime that is not CRI v1 is reported against Version itself; any other failure against the caller's method.
            const rpc = CriError.is(err, 'VERSION_MISMATCH') ? 'runtime.v1.RuntimeService/Version' : 'runtime.v1.RuntimeService/Status';
            await expectMessageOrCriError(rpc, pending);
          } finally {
            fresh.close();
            delete server.handlers.version;
          }
        },
        { runs: 30 },
      );
    },
    TIMEOUT_MS,
  );
});
