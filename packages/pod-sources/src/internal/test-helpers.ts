// Test-only helpers (not exported from the package).
import type { PodSource, SourceEvent } from '../types.js';

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs` of real time. */
export async function eventually<T>(probe: () => T | undefined, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs a source, recording its events; `stop()` aborts it and waits for it to return. */
export function runSource(source: PodSource): { events: SourceEvent[]; sets: () => SourceEvent[]; stop: () => Promise<void> } {
  const events: SourceEvent[] = [];
  const controller = new AbortController();
  const done = source.run((e) => events.push(e), controller.signal);
  return {
    events,
    sets: () => events.filter((e) => e.kind === 'set'),
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}
