import { createTokenBucket, noopLogger } from '@kubelet-ts/common';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText } from '@kubelet-ts/test-support';
import { KubeClientError } from './errors.js';
import { LineDecoder } from './internal/ndjson.js';
import { createRestClient } from './internal/rest-client.js';
import type { Transport, TransportResponse } from './internal/transport.js';
import type { WatchEvent } from './types.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

const PATH = '/api/v1/pods';
const TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Cuts `bytes` at the given offsets (any order, duplicates dropped). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return out;
}

/** The reference: lines of the whole stream, decoded one by one, up to the first that is not a watch event. */
function expected(bytes: Buffer): { events: WatchEvent[]; fails: boolean } {
  const events: WatchEvent[] = [];
  const text = bytes.toString('binary');
  for (const raw of text.split('\n')) {
    const line = Buffer.from(raw, 'binary');
    if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) continue;
    if (line.toString('utf8').trim() === '' && raw === text.split('\n').at(-1)) continue; // trailing blank rest
    let json: unknown;
    try {
      json = JSON.parse(line.toString('utf8'));
    } catch {
      return { events, fails: true };
    }
    const e = json as { type?: unknown; object?: unknown };
    const isRecord = typeof e?.object === 'object' && e.object !== null && !Array.isArray(e.object);
    if (typeof json !== 'object' || json === null || !TYPES.has(e.type as string) || !isRecord) return { events, fails: true };
    events.push({ type: e.type as WatchEvent['type'], object: e.object as Record<string, unknown> });
  }
  return { events, fails: false };
}

const goodEvent = (name: string, type = 'ADDED'): string =>
  JSON.stringify({ type, object: { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: '7' } } });

/** A watch body: good events, bookmarks, bad JSON, unknown types, ERROR events, hostile lines, \r\n endings. */
const line: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }).map((n) => goodEvent(n)), weight: 4 },
  { arbitrary: fc.constant(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '9' } } })), weight: 1 },
  { arbitrary: fc.constantFrom('UNKNOWN', 'added', '', 'ERROR').map((type) => goodEvent('x', type)), weight: 1 },
  {
    arbitrary: fc.constant(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } })),
    weight: 1,
  },
  {
    arbitrary: fc.constantFrom('{"type":"ADDED"}', '{"type":"ADDED","object":[]}', '{"type":"ADDED","object":null}', '[]', 'null', '{'),
    weight: 1,
  },
  { arbitrary: hostileText().map((t) => t.replace(/\n/g, ' ').slice(0, 50_000)), weight: 1 },
);
const body: fc.Arbitrary<Buffer> = fc.oneof(
  {
    arbitrary: fc
      .tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'))
      .map(([lines, nl]) => Buffer.from(lines.join(nl) + nl)),
    weight: 4,
  },
  { arbitrary: hostileBytes().map((b) => Buffer.from(b)), weight: 1 },
);

function transportFor(chunks: Buffer[], failAfter: number | undefined): Transport {
  return {
    send(): Promise<TransportResponse> {
      return Promise.resolve({
        statusCode: 200,
        headers: {},
        body: (async function* () {
          for (const [i, c] of chunks.entries()) {
            if (failAfter !== undefined && i >= failAfter) throw new Error('socket hang up');
            yield c;
          }
        })(),
        destroy: () => undefined,
      });
    },
    closeAll: () => undefined,
    connectionsOpened: () => 1,
  };
}

describe('watch stream (fuzz)', () => {
  it('decodes a watch body cut anywhere exactly as the whole, or ends with a KubeClientError naming the watch', async () => {
    await fuzz(
      'kube-client: watch stream (NDJSON events, random chunking)',
      fc.record({ body, cuts: fc.array(fc.nat(), { maxLength: 30 }), failAfter: fc.option(fc.nat({ max: 10 }), { nil: undefined }) }),
      async ({ body: bytes, cuts, failAfter }) => {
        const clock = new FakeClock();
        const chunks = split(bytes, cuts);
        const client = createRestClient(transportFor(chunks, failAfter), {
          name: 'fuzz',
          host: 'api:6443',
          userAgent: 'kubelet-ts/fuzz',
          timeoutMs: undefined,
          limiter: createTokenBucket({ qps: -1, burst: 0, clock }),
          clock,
          logger: noopLogger,
          metrics: new RecordingMetrics(),
          maxRetries: 0,
        });
        const got: WatchEvent[] = [];
        let error: unknown;
        try {
          for await (const event of client.watch(PATH, {}, new AbortController().signal)) got.push(event);
        } catch (err) {
          error = err;
        }
        if (error !== undefined) {
          expect(KubeClientError.is(error)).toBe(true);
          // `WATCH <path>: …` for what the stream held, `GET <path>: …` for the transport failing.
          expect((error as Error).message).toMatch(new RegExp(`^(WATCH|GET) ${PATH}: \\S`));
        }
        const reference = expected(bytes);
        if (failAfter === undefined || failAfter >= chunks.length) {
          // Chunk boundaries change nothing: the same events, and an error exactly when a line is bad.
          expect(got).toEqual(reference.events);
          expect(error !== undefined).toBe(reference.fails);
        } else {
          expect(reference.events.slice(0, got.length)).toEqual(got);
          expect(error).toBeDefined();
        }
      },
      { runs: 200 },
    );
  });

  it('splits lines across any chunks, refusing one longer than the limit', async () => {
    await fuzz(
      'kube-client: NDJSON line decoder',
      fc.record({
        bytes: fc.oneof(
          fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
          // Lines around the limit, with \n or \r\n endings or none at the end.
          fc
            .tuple(fc.array(fc.uint8Array({ maxLength: 120 }), { maxLength: 20 }), fc.constantFrom('', '\n', '\r\n'))
            .map(([lines, end]) =>
              Buffer.from(lines.map((l) => Buffer.from(l).toString('binary').replace(/\n/g, '')).join('\n') + end, 'binary'),
            ),
        ),
        cuts: fc.array(fc.nat(), { maxLength: 40 }),
        max: fc.integer({ min: 1, max: 100 }),
      }),
      ({ bytes, cuts, max }) => {
        const decoder = new LineDecoder(max);
        const lines: Buffer[] = [];
        let error: unknown;
        try {
          for (const chunk of split(bytes, cuts)) lines.push(...decoder.push(chunk));
          const rest = decoder.end();
          if (rest !== undefined) lines.push(rest);
        } catch (err) {
          error = err;
        }
        const whole = bytes.toString('binary').split('\n');
        const reference = whole.slice(0, -1).filter((l) => l !== '' && l !== '\r');
        const last = whole.at(-1) ?? '';
        if (error !== undefined) {
          expect((error as Error).message).toBe(`watch event longer than ${max} bytes`);
          expect(whole.some((l) => l.length > max)).toBe(true);
          return;
        }
        // However the stream is cut, a line over the limit is refused.
        expect(whole.some((l) => l.length > max)).toBe(false);
        const expectedLines = Buffer.from(last, 'binary').toString('utf8').trim() === '' ? reference : [...reference, last];
        expect(lines.map((l) => l.toString('binary'))).toEqual(expectedLines);
      },
      { runs: 300 },
    );
  });
});
