import type { ContainerEventSource, RuntimeContainerEvent } from '../evented-pleg.js';

interface OpenStream {
  queue: unknown[];
  wake: (() => void) | undefined;
  end: { error?: Error } | undefined;
}

/**
 * A scripted container event stream: `send` delivers to the open stream, `breakStream` and `endStream`
 * fail it, `failOpens` makes the next streams fail as soon as they are read (containerd 1.6's
 * UNIMPLEMENTED). `opened` counts the streams opened.
 */
export class FakeContainerEventSource implements ContainerEventSource {
  opened = 0;
  #current: OpenStream | undefined;
  #failOpens = 0;
  #failError = new Error('unknown service runtime.v1.RuntimeService');
  #openWaiters: Array<() => void> = [];

  /** The next `count` streams (Infinity: every one) fail when first read, with `error`. */
  failOpens(count: number, error?: Error): void {
    this.#failOpens = count;
    if (error !== undefined) this.#failError = error;
  }

  /** Whether a stream is open and being read. */
  get isOpen(): boolean {
    return this.#current !== undefined;
  }

  /** Resolves once a stream is open. */
  whenOpen(): Promise<void> {
    if (this.#current !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.#openWaiters.push(resolve));
  }

  /** Delivers an event (or anything else: the PLEG must cope) to the open stream. */
  send(event: RuntimeContainerEvent | unknown): void {
    const stream = this.#current;
    if (stream === undefined) throw new Error('no container event stream is open');
    stream.queue.push(event);
    stream.wake?.();
  }

  /** The open stream fails with `error`. */
  breakStream(error = new Error('transport is closing')): void {
    this.#finish({ error });
  }

  /** The open stream ends as if the runtime closed it (EOF). */
  endStream(): void {
    this.#finish({});
  }

  getContainerEvents(signal: AbortSignal): AsyncIterable<RuntimeContainerEvent> {
    this.opened++;
    const failing = this.#failOpens > 0;
    if (failing) this.#failOpens--;
    const error = this.#failError;
    const stream: OpenStream = { queue: [], wake: undefined, end: undefined };
    const iterate = async function* (this: FakeContainerEventSource): AsyncGenerator<RuntimeContainerEvent> {
      if (failing) throw error;
      this.#current = stream;
      for (const resolve of this.#openWaiters.splice(0)) resolve();
      const onAbort = (): void => stream.wake?.();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        while (!signal.aborted) {
          const next = stream.queue.shift();
          if (next !== undefined) {
            yield next as RuntimeContainerEvent;
            continue;
          }
          if (stream.end !== undefined) {
            if (stream.end.error !== undefined) throw stream.end.error;
            return;
          }
          await new Promise<void>((resolve) => (stream.wake = resolve));
          stream.wake = undefined;
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        if (this.#current === stream) this.#current = undefined;
      }
    };
    return iterate.call(this);
  }

  #finish(end: { error?: Error }): void {
    const stream = this.#current;
    if (stream === undefined) throw new Error('no container event stream is open');
    stream.end = end;
    this.#current = undefined;
    stream.wake?.();
  }
}
