import { ConfigMapSchema, NodeSchema, PodSchema, SecretSchema } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, mutated } from '@kubelet-ts/test-support';
import type { z } from 'zod';
import { KubeClientError } from './errors.js';
import { createInformer } from './informer.js';
import type { KubeClient, WatchEvent } from './types.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

type Json = Parameters<typeof mutated>[0];

interface Kind {
  path: string;
  schema: z.ZodType<{ metadata: { name?: string } }>;
  object: (name: string) => Json;
}

const meta = (name: string, namespaced: boolean): Json => ({
  name,
  ...(namespaced ? { namespace: 'default' } : {}),
  uid: `uid-${name}`,
  resourceVersion: '5',
  labels: { app: 'web' },
  annotations: { note: 'x' },
});

const KINDS: Kind[] = [
  {
    path: '/api/v1/pods',
    schema: PodSchema,
    object: (name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta(name, true),
      spec: {
        nodeName: 'node-a',
        containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    }),
  },
  {
    path: '/api/v1/nodes',
    schema: NodeSchema,
    object: (name) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta(name, false),
      spec: { podCIDR: '10.0.0.0/24', taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      },
    }),
  },
  {
    path: '/api/v1/namespaces/default/configmaps',
    schema: ConfigMapSchema,
    object: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, true), data: { a: 'b' }, binaryData: { c: 'AAAA' } }),
  },
  {
    path: '/api/v1/namespaces/default/secrets',
    schema: SecretSchema,
    object: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(name, true), type: 'Opaque', data: { a: 'YWI=' } }),
  },
];

/** One step of a fuzzed watch: an event (of any type, with a mutated object) or the stream failing. */
type Step = { event: { type: unknown; object: unknown } } | { fail: 'decode' | 'expired' | 'transport' };

const stepsFor = (kind: Kind): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      {
        arbitrary: fc
          .tuple(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), mutated(kind.object('fuzzed')))
          .map(([type, object]): Step => ({ event: { type, object } })),
        weight: 6,
      },
      { arbitrary: fc.constantFrom<Step>({ fail: 'decode' }, { fail: 'expired' }, { fail: 'transport' }), weight: 1 },
    ),
    { maxLength: 8 },
  );

const failure = (kind: 'decode' | 'expired' | 'transport'): Error =>
  kind === 'decode'
    ? new KubeClientError('WATCH_DECODE', 'WATCH /x: watch event is not JSON: {')
    : kind === 'expired'
      ? new KubeClientError('API_STATUS', 'WATCH /x: too old (410 Expired)', { statusCode: 410, reason: 'Expired' })
      : new KubeClientError('TRANSPORT', 'GET /x: socket hang up');

/** list: one valid object; the first watch plays the steps, every later one delivers the sentinel and waits. */
function clientFor(kind: Kind, steps: Step[]): Pick<KubeClient, 'list' | 'watch'> {
  let watches = 0;
  return {
    list: () => Promise.resolve({ metadata: { resourceVersion: '5' }, items: [kind.object('listed')] }) as never,
    watch: (_path: string, _query: unknown, signal: AbortSignal): AsyncIterable<WatchEvent> =>
      (async function* () {
        if (watches++ === 0) {
          for (const step of steps) {
            if ('fail' in step) throw failure(step.fail);
            // The stream decoder hands on any object; the informer's schema is what checks it.
            yield step.event as WatchEvent;
          }
          return;
        }
        yield { type: 'ADDED', object: kind.object('sentinel') as Record<string, unknown> };
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      })(),
  };
}

describe('informer (fuzz)', () => {
  it('skips and reports invalid watch objects, survives failing streams, and still delivers the next good event', async () => {
    await fuzz(
      'kube-client: informer over watch events (mutated Pod/Node/ConfigMap/Secret)',
      fc.constantFrom(...KINDS).chain((kind) => stepsFor(kind).map((steps) => ({ kind, steps }))),
      async ({ kind, steps }) => {
        const clock = new FakeClock();
        const logger = new RecordingLogger();
        const informer = createInformer({
          client: clientFor(kind, steps),
          path: kind.path,
          schema: kind.schema,
          clock,
          logger,
          random: () => 0,
        });
        const seen: string[] = [];
        informer.addEventHandler({
          onAdd: (o) => seen.push(o.metadata.name ?? ''),
          onUpdate: (_old, o) => seen.push(o.metadata.name ?? ''),
        });
        const controller = new AbortController();
        informer.start(controller.signal);
        // Back-off after a failure is at most 30 s per retry (jitter 0): advance until the sentinel comes.
        for (let i = 0; i < 20 && !seen.includes('sentinel'); i++) await clock.advance(31_000);
        controller.abort();
        expect(seen).toContain('listed');
        expect(seen).toContain('sentinel');
        expect(informer.get(kind.path.includes('nodes') ? 'sentinel' : 'default/sentinel')).toBeDefined();
        // Every object skipped is logged with where it came from, and the field and reason when it has a name.
        for (const r of logger.records.filter((x) => x.msg === 'Skipping an invalid object')) {
          expect(r.fields['where']).toMatch(/^WATCH /);
          expect(typeof r.fields['field']).toBe('string');
          expect(String(r.fields['reason']).length).toBeGreaterThan(0);
        }
      },
      { runs: 120 },
    );
  });
});
