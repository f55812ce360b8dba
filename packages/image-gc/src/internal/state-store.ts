import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { z } from 'zod';

/** What survives a restart for one image: when it was first seen and when a container last used it (ms since the epoch). */
export interface PersistedImageTimes {
  firstDetectedMs: number;
  /** 0 when no container was ever seen using it. */
  lastUsedMs: number;
}

const timestamp = z.iso.datetime({ offset: true });

// The file is ours but lives on disk: anything else (hand edits, a torn write from an older
// version) is a trust boundary. Times are RFC 3339 so that an operator can read them.
const stateFileSchema = z.object({
  version: z.literal(1),
  images: z.record(
    z.string().min(1),
    z.object({
      firstDetected: timestamp,
      lastUsed: timestamp.optional(),
    }),
  ),
});

export type StateFileContents = z.infer<typeof stateFileSchema>;

export function encodeState(times: ReadonlyMap<string, PersistedImageTimes>): string {
  const images: StateFileContents['images'] = {};
  for (const id of [...times.keys()].sort()) {
    const t = times.get(id) as PersistedImageTimes;
    images[id] = {
      firstDetected: new Date(t.firstDetectedMs).toISOString(),
      ...(t.lastUsedMs > 0 ? { lastUsed: new Date(t.lastUsedMs).toISOString() } : {}),
    };
  }
  const contents: StateFileContents = { version: 1, images };
  return `${JSON.stringify(contents, null, 2)}\n`;
}

/** Parses the state file's text; undefined (with the reason) when it is not a valid state. */
export function decodeState(text: string): { times: Map<string, PersistedImageTimes> } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${errorMessage(err)}` };
  }
  const parsed = stateFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
    return { error: `${where}: ${issue?.message ?? 'invalid'}` };
  }
  const times = new Map<string, PersistedImageTimes>();
  for (const [id, entry] of Object.entries(parsed.data.images)) {
    times.set(id, {
      firstDetectedMs: Date.parse(entry.firstDetected),
      lastUsedMs: entry.lastUsed === undefined ? 0 : Date.parse(entry.lastUsed),
    });
  }
  return { times };
}

/** Loads and saves the image times as JSON in one file, written atomically (temp file + rename). */
export class StateStore {
  readonly #file: string;
  readonly #logger: Logger;
  #lastWritten: string | undefined;

  constructor(file: string, logger: Logger) {
    this.#file = file;
    this.#logger = logger;
  }

  /** The saved times; empty when the file is missing, and (with a warning) when it is unreadable or invalid. */
  async load(): Promise<Map<string, PersistedImageTimes>> {
    let text: string;
    try {
      text = await fs.readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#logger.warn('Cannot read the image GC state; last-used times start empty', { path: this.#file, err: errorMessage(err) });
      }
      return new Map();
    }
    const decoded = decodeState(text);
    if ('error' in decoded) {
      this.#logger.warn('Ignoring an invalid image GC state file; last-used times start empty', { path: this.#file, err: decoded.error });
      return new Map();
    }
    this.#lastWritten = text;
    return decoded.times;
  }

  /** Writes the times when they changed since the last write. */
  async save(times: ReadonlyMap<string, PersistedImageTimes>): Promise<void> {
    const text = encodeState(times);
    if (text === this.#lastWritten) return;
    const dir = path.dirname(this.#file);
    const tmp = path.join(dir, `.${path.basename(this.#file)}.${process.pid}.tmp`);
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
    await fs.writeFile(tmp, text, { mode: 0o640 });
    await fs.rename(tmp, this.#file);
    this.#lastWritten = text;
  }
}
