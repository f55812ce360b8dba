// A watch response as an async iterable of events: framing, decoding, ERROR events as errors.
import { z } from 'zod';
import { KubeClientError } from '../errors.js';
import type { WatchEvent } from '../types.js';
import { parseBody, statusError } from './http.js';
import { LineDecoder } from './ndjson.js';
import type { Send, Sent } from './send.js';

/** One event is one object; a Node or a big Pod is far below this. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

const WatchEventSchema = z.object({
  type: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']),
  object: z.record(z.string(), z.unknown()),
});

function decodeEvent(where: string, line: Buffer): WatchEvent {
  let json: unknown;
  try {
    json = JSON.parse(line.toString('utf8'));
  } catch (err) {
    throw new KubeClientError('WATCH_DECODE', `${where}: watch event is not JSON: ${line.toString('utf8').slice(0, 200)}`, { cause: err });
  }
  const event = WatchEventSchema.safeParse(json);
  if (!event.success) {
    const issue = event.error.issues[0];
    throw new KubeClientError(
      'WATCH_DECODE',
      `${where}: not a watch event: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
      {
        cause: event.error,
      },
    );
  }
  if (event.data.type === 'ERROR') {
    const code = typeof event.data.object.code === 'number' ? event.data.object.code : 500;
    throw statusError(`${where}: watch ERROR event`, code, event.data.object);
  }
  return { type: event.data.type, object: event.data.object };
}

export async function* watchEvents(
  s: Send,
  send: (s: Send) => Promise<Sent>,
  failure: (s: Send, err: unknown, timedOut: boolean) => unknown,
): AsyncGenerator<WatchEvent> {
  const where = `WATCH ${s.path}`;
  if (s.signal?.aborted) return;
  let sent: Sent;
  try {
    sent = await send(s);
  } catch (err) {
    if (s.signal?.aborted) return;
    throw err;
  }
  let finished = false;
  try {
    const { statusCode, body } = sent.response;
    if (statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk);
      throw statusError(where, statusCode, parseBody(Buffer.concat(chunks)));
    }
    const decoder = new LineDecoder(MAX_EVENT_BYTES);
    for await (const chunk of body) {
      let lines: Buffer[];
      try {
        lines = decoder.push(chunk);
      } catch (err) {
        throw new KubeClientError('WATCH_DECODE', `${where}: ${(err as Error).message}`);
      }
      for (const line of lines) yield decodeEvent(where, line);
    }
    const rest = decoder.end();
    if (rest !== undefined) yield decodeEvent(where, rest);
    finished = true;
  } catch (err) {
    if (s.signal?.aborted && !KubeClientError.is(err)) return;
    throw failure(s, err, sent.timedOut());
  } finally {
    sent.done();
    if (!finished) sent.response.destroy();
  }
}
