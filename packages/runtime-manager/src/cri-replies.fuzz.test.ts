// Fuzzing of what the runtime manager reads from CRI replies: the statuses generatePodStatus converts
// (as a CRI container event carries them) and the container annotations it falls back on to kill a
// container whose pod spec is gone (grace periods, the preStop handler, ports). The replies are in
// cri-client's output form (every field present, unknown enum values as numbers) with junk values.
// The property: never an uncoded throw; the good container among junk ones still comes through.
import { CONTAINER_PORTS_ANNOTATION, CONTAINER_PRE_STOP_HANDLER_ANNOTATION } from '@kubelet-ts/container-runtime';
import type { Container, ContainerStatus, PodSandbox, PodSandboxStatus } from '@kubelet-ts/cri-client';
import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { generatePodStatus } from './generate-pod-status.js';
import { decodeContainerAnnotations } from './labels.js';
import { app, makePod, setup, sync } from './internal/test-env.js';

const TIMEOUT_MS = fuzzRuns(20_000);

/** JSON text of a value; mutated() nests some 50 000 deep, past what JSON.stringify recurses into. */
function toJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
  }
}

const int64 = fc.oneof(
  fc.constantFrom('0', '-1', '', 'abc', '1.5', '9223372036854775807', '-9223372036854775808', '1700000000123456789'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  hostileText().filter((t) => t.length < 4096),
);
const enumValue = fc.oneof(
  fc.constantFrom('CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN', 'SANDBOX_READY', 'SANDBOX_NOTREADY'),
  fc.integer({ min: -3, max: 1_000_000 }),
);
const stringMap = fc.dictionary(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...KNOWN_KEYS())), text, { maxKeys: 8 });

function KNOWN_KEYS(): string[] {
  return [
    'io.kubernetes.pod.uid',
    'io.kubernetes.pod.name',
    'io.kubernetes.pod.namespace',
    'io.kubernetes.container.name',
    'io.kubernetes.container.hash',
    'io.kubernetes.container.restartCount',
    'io.kubernetes.container.terminationMessagePath',
    'io.kubernetes.container.terminationMessagePolicy',
    'io.kubernetes.container.preStopHandler',
    'io.kubernetes.container.ports',
    'io.kubernetes.pod.terminationGracePeriod',
  ];
}

const containerStatus: fc.Arbitrary<ContainerStatus> = fc
  .record({
    id: text,
    metadata: fc.option(fc.record({ name: text, attempt: fc.nat() }), { nil: null }),
    state: enumValue,
    createdAt: int64,
    startedAt: int64,
    finishedAt: int64,
    exitCode: fc.integer(),
    image: fc.option(fc.record({ image: text, userSpecifiedImage: text, annotations: fc.constant({}), runtimeHandler: fc.constant('') }), {
      nil: null,
    }),
    imageRef: text,
    reason: text,
    message: text,
    labels: stringMap,
    annotations: stringMap,
    mounts: fc.array(fc.record({ containerPath: text, hostPath: fc.constantFrom('', '/nonexistent/x', '/dev/null', '/') }), {
      maxLength: 2,
    }),
    logPath: fc.constantFrom('', '/nonexistent/log', '/dev/null', '/'),
  })
  .map((s) => s as unknown as ContainerStatus);

const sandboxStatus: fc.Arbitrary<PodSandboxStatus> = fc
  .record({
    id: text,
    metadata: fc.option(fc.record({ name: text, uid: text, namespace: text, attempt: fc.integer() }), { nil: null }),
    state: enumValue,
    createdAt: int64,
    network: fc.option(fc.record({ ip: text, additionalIps: fc.array(fc.record({ ip: text }), { maxLength: 3 }) }), { nil: null }),
    linux: fc.constant(null),
    labels: stringMap,
    annotations: stringMap,
    runtimeHandler: text,
  })
  .map((s) => s as unknown as PodSandboxStatus);

const listedSandbox: fc.Arbitrary<PodSandbox> = fc
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

const listedContainer: fc.Arbitrary<Container> = fc
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

const goodContainer = {
  id: 'good',
  metadata: { name: 'app', attempt: 0 },
  state: 'CONTAINER_RUNNING',
  createdAt: '1700000000000000000',
  startedAt: '1700000001000000000',
  finishedAt: '0',
  exitCode: 0,
  image: { image: 'busybox:1.36', userSpecifiedImage: 'busybox:1.36', annotations: {}, runtimeHandler: '' },
  imageRef: 'sha256:1',
  reason: '',
  message: '',
  labels: { 'io.kubernetes.container.name': 'app', 'io.kubernetes.pod.uid': 'uid-1' },
  annotations: { 'io.kubernetes.container.restartCount': '2' },
  mounts: [],
  logPath: '',
} as unknown as ContainerStatus;

describe('fuzzing the CRI replies the runtime manager reads', () => {
  it(
    'generatePodStatus converts junk sandbox and container statuses, keeping the good container',
    async () => {
      await fuzz(
        'runtime-manager: CRI PodSandboxStatus / ContainerStatus replies (generatePodStatus)',
        fc.record({ sandbox: sandboxStatus, containers: fc.array(containerStatus, { maxLength: 4 }) }),
        async ({ sandbox, containers }) => {
          const status = await generatePodStatus(sandbox, [...containers, goodContainer], 1_000);
          if (sandbox.metadata === null) {
            expect(status).toBeUndefined();
            return;
          }
          expect(status?.sandboxes).toHaveLength(1);
          for (const c of status?.containers ?? []) {
            expect(Number.isFinite(c.createdAt)).toBe(true);
            expect(Number.isFinite(c.restartCount)).toBe(true);
          }
          expect(status?.containers.find((c) => c.id === 'good')).toMatchObject({ name: 'app', state: 'running', restartCount: 2 });
        },
        { runs: 100 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'decodes junk container annotations to a well-typed preStop handler and ports, or none',
    async () => {
      const valid = {
        exec: { command: ['sh', '-c', 'sleep 1'] },
        httpGet: { path: '/stop', port: 8080, host: '', scheme: 'HTTP' },
        sleep: { seconds: 1 },
      };
      const handlerText = fc.oneof(
        mutated(valid).map(toJson),
        fc.jsonValue({ maxDepth: 3 }).map(toJson),
        hostileText().filter((t) => t.length < 64 * 1024),
        fc.constantFrom(
          '{"exec":null}',
          '{"exec":{"command":"rm -rf /"}}',
          '{"httpGet":null}',
          '{"sleep":{"seconds":"5"}}',
          '{"sleep":null}',
        ),
      );
      const portsText = fc.oneof(
        mutated([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]).map(toJson),
        fc.jsonValue({ maxDepth: 3 }).map(toJson),
        fc.constantFrom('[null]', '[5]', '[{"containerPort":"x"}]'),
      );
      await fuzz(
        'runtime-manager: container annotations (preStop handler, ports, grace periods)',
        fc.record({ handler: handlerText, ports: portsText }),
        ({ handler, ports }) => {
          const info = decodeContainerAnnotations({
            [CONTAINER_PRE_STOP_HANDLER_ANNOTATION]: handler,
            [CONTAINER_PORTS_ANNOTATION]: ports,
          });
          const h = info.preStopHandler;
          if (h !== undefined) {
            if (h.exec !== undefined) expect(Array.isArray(h.exec.command ?? [])).toBe(true);
            if (h.httpGet !== undefined) expect(['number', 'string']).toContain(typeof h.httpGet.port);
            if (h.sleep !== undefined) expect(typeof h.sleep.seconds).toBe('number');
          }
          for (const p of info.containerPorts ?? []) expect(typeof p.containerPort).toBe('number');
        },
        { runs: 200 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'kills a container whose pod spec is gone, whatever its annotations say',
    async () => {
      const handlerText = fc.oneof(
        mutated({ exec: { command: ['cleanup'] } }).map(toJson),
        mutated({ httpGet: { path: '/stop', port: 'http' } }).map(toJson),
        mutated({ sleep: { seconds: 1 } }).map(toJson),
        fc.constantFrom(
          '{"exec":null}',
          '{"exec":{"command":"cleanup"}}',
          '{"httpGet":null}',
          '{"sleep":null}',
          '{"sleep":{"seconds":"x"}}',
        ),
      );
      await fuzz(
        'runtime-manager: container annotations when killing without the pod spec',
        fc.record({ handler: handlerText, grace: fc.oneof(fc.constantFrom('-1', '0', '99999999999999999999', 'x'), fc.nat().map(String)) }),
        async ({ handler, grace }) => {
          const env = setup();
          env.runtime.setExecHandler(() => ({ exitCode: 0 }));
          const pod = makePod({ containers: [app] });
          await sync(env, pod);
          const running = (await env.manager.getPods(false)).find((p) => p.uid === 'uid-1');
          if (running === undefined) throw new Error('pod not running');
          const status = env.runtime.containerStatus.bind(env.runtime);
          env.runtime.containerStatus = async (request, options) => {
            const reply = await status(request, options);
            if (reply.status !== null) {
              reply.status.annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION] = handler;
              reply.status.annotations['io.kubernetes.pod.terminationGracePeriod'] = grace;
            }
            return reply;
          };
          const killing = env.manager.killPod(undefined, running);
          // A sleep hook or a grace period waits on the fake clock: move it on until the kill is done.
          let done = false;
          void killing.finally(() => (done = true));
          for (let i = 0; i < 50 && !done; i++) await env.clock.advance(60_000);
          const result = await killing;
          expect(result.error).toBeUndefined();
          expect(env.runtime.callsOf('stopContainer').length).toBeGreaterThan(0);
        },
        { runs: 40 },
      );
    },
    TIMEOUT_MS,
  );
  it(
    'lists pods (ListPodSandbox / ListContainers) with junk items next to a running pod, which still comes through',
    async () => {
      await fuzz(
        'runtime-manager: CRI ListPodSandbox / ListContainers replies (getPods, getPodStatus)',
        fc.record({ sandboxes: fc.array(listedSandbox, { maxLength: 4 }), containers: fc.array(listedContainer, { maxLength: 4 }) }),
        async ({ sandboxes, containers }) => {
          const env = setup();
          await sync(env, makePod({ containers: [app] }));
          const listSandboxes = env.runtime.listPodSandbox.bind(env.runtime);
          const listContainers = env.runtime.listContainers.bind(env.runtime);
          env.runtime.listPodSandbox = async (request, options) => {
            const reply = await listSandboxes(request, options);
            return { ...reply, items: [...sandboxes, ...reply.items] };
          };
          env.runtime.listContainers = async (request, options) => {
            const reply = await listContainers(request, options);
            return { ...reply, containers: [...containers, ...reply.containers] };
          };
          for (const all of [false, true]) {
            const pods = await env.manager.getPods(all);
            const web = pods.find((p) => p.uid === 'uid-1');
            expect(web?.containers.map((c) => c.name)).toContain('app');
            for (const pod of pods) for (const c of pod.containers) expect(Number.isFinite(c.createdAt)).toBe(true);
          }
          // getPodStatus asks for each listed sandbox and container: junk IDs the fake does not know are NOT_FOUND, skipped.
          const status = await env.manager.getPodStatus('uid-1', 'web', 'prod');
          expect(status.containers.map((c) => c.name)).toContain('app');
        },
        { runs: 40 },
      );
    },
    TIMEOUT_MS,
  );
});
