import { FakeClock } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText, mutated } from '@kubelet-ts/test-support';
import { createHttpSource } from './http-source.js';
import type { FetchFn } from './http-source.js';
import { jsonText } from './internal/test-helpers.js';
import type { SourceEvent } from './types.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

const URL = 'http://config.example/pods';
const MAX_BODY_BYTES = 64 * 1024;

const goodBody = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'good' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
});
const validList = {
  apiVersion: 'v1',
  kind: 'PodList',
  items: [
    { metadata: { name: 'one' }, spec: { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } },
    { metadata: { name: 'two' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '1d'] }] } },
  ],
};

interface FuzzedResponse {
  status: number;
  body: Uint8Array;
  /** Where the body is cut into chunks (offsets, any order). */
  cuts: number[];
  /** A Content-Length header: the truth, a lie, or none. */
  contentLength: 'true' | 'none' | number;
  /** The stream fails after this many chunks. */
  failAfterChunks: number | undefined;
}

const bodies: fc.Arbitrary<Uint8Array> = fc.oneof(
  hostileBytes(),
  hostileText().map((text) => new Uint8Array(Buffer.from(text, 'utf8'))),
  mutated(validList).map((list) => new Uint8Array(Buffer.from(jsonText(list), 'utf8'))),
  // Over the limit, sent without a Content-Length unless the arbitrary adds one.
  fc.integer({ min: MAX_BODY_BYTES + 1, max: 4 * MAX_BODY_BYTES }).map((size) => new Uint8Array(size).fill(0x20)),
);

const responses: fc.Arbitrary<FuzzedResponse> = fc.record({
  status: fc.oneof(fc.constant(200), fc.constant(200), fc.constantFrom(204, 301, 404, 500, 503)),
  body: bodies,
  cuts: fc.array(fc.nat(), { maxLength: 20 }),
  contentLength: fc.oneof(fc.constantFrom<'true' | 'none'>('true', 'none'), fc.nat({ max: 8 * MAX_BODY_BYTES }), fc.constant(2 ** 53)),
  failAfterChunks: fc.option(fc.nat({ max: 5 }), { nil: undefined }),
});

function toResponse(r: FuzzedResponse): Response {
  const cuts = [...new Set(r.cuts.map((c) => (r.body.length === 0 ? 0 : c % r.body.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, r.body.length]) {
    if (cut > from) chunks.push(r.body.subarray(from, cut));
    from = Math.max(from, cut);
  }
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (r.failAfterChunks !== undefined && sent >= r.failAfterChunks) {
        controller.error(new Error('connection reset by peer'));
        return;
      }
      const chunk = chunks[sent++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (r.contentLength === 'true') headers['content-length'] = String(r.body.length);
  else if (typeof r.contentLength === 'number') headers['content-length'] = String(r.contentLength);
  // 204 and 304 may not carry a body in the fetch API.
  return new Response(r.status === 204 ? null : stream, { status: r.status, headers });
}

describe('createHttpSource (fuzz)', () => {
  it('reports a bad body with the URL and a reason, and takes the next good body', async () => {
    await fuzz(
      'pod-sources: --manifest-url body (chunked, lying Content-Length, huge)',
      responses,
      async (fuzzed) => {
        const clock = new FakeClock();
        const replies = [() => toResponse(fuzzed), () => new Response(goodBody, { status: 200 })];
        const fetch: FetchFn = () => Promise.resolve((replies.shift() ?? (() => new Response(goodBody)))());
        const events: SourceEvent[] = [];
        let wake: (() => void) | undefined;
        const next = (): Promise<void> => new Promise((resolve) => (wake = resolve));
        const controller = new AbortController();
        const source = createHttpSource({
          url: URL,
          nodeName: 'node-a',
          clock,
          fetch,
          maxBodyBytes: MAX_BODY_BYTES,
          checkFrequencyMs: 1000,
        });
        let event = next();
        const done = source.run((e) => {
          events.push(e);
          wake?.();
        }, controller.signal);
        await event;
        const first = events[0];
        if (first?.kind === 'error') {
          for (const e of first.errors) {
            expect(e.source).toBe('http');
            expect(e.file).toBe(URL);
            expect(typeof e.path).toBe('string');
            expect(e.reason.length).toBeGreaterThan(0);
          }
        } else {
          expect(first?.kind).toBe('set');
        }
        // The next poll's good body is taken whatever came before.
        event = next();
        await clock.advance(1000);
        await event;
        controller.abort();
        await done;
        const last = events.at(-1);
        expect(last?.kind === 'set' ? last.pods.map((p) => p.metadata.name) : last).toEqual(['good-node-a']);
      },
      { runs: 100 },
    );
  });
});
