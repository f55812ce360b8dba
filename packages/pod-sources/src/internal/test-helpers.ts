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

class Token {
  constructor(readonly text: string) {}
}

/** JSON.stringify without recursion: mutated() nests subtrees 50 000 deep, which overflows the native one. */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Token) out.push(item.text);
    else if (Array.isArray(item)) {
      out.push('[');
      stack.push(new Token(']'));
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i], ...(i > 0 ? [new Token(',')] : []));
    } else if (typeof item === 'object' && item !== null) {
      out.push('{');
      stack.push(new Token('}'));
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        stack.push(child, new Token(`${JSON.stringify(key)}:`), ...(i > 0 ? [new Token(',')] : []));
      }
    } else out.push(JSON.stringify(item) ?? 'null');
  }
  return out.join('');
}
