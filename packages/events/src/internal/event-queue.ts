import type { Event } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';

/**
 * One destination's bounded queue (a watcher of client-go's broadcaster, made with
 * `DropIfChannelFull`): `offer` never waits and refuses when full; one event is handled at a time.
 */
export class EventQueue {
  readonly #handler: (event: Event) => void | Promise<void>;
  readonly #capacity: number;
  readonly #logger: Logger;
  readonly #items: Event[] = [];
  #running = false;
  #stopped = false;
  #idle: (() => void)[] = [];
  #current: Promise<void> = Promise.resolve();

  constructor(handler: (event: Event) => void | Promise<void>, capacity: number, logger: Logger) {
    this.#handler = handler;
    this.#capacity = capacity;
    this.#logger = logger;
  }

  /** False when the queue is full or stopped: the event is dropped for this destination. */
  offer(event: Event): boolean {
    if (this.#stopped || this.#items.length >= this.#capacity) return false;
    this.#items.push(event);
    if (!this.#running) {
      this.#running = true;
      // Started on a later turn: the recording caller never runs a destination's code.
      this.#current = Promise.resolve().then(() => this.#drain());
    }
    return true;
  }

  isIdle(): boolean {
    return !this.#running;
  }

  /** Resolves when the queue is empty and nothing is being handled. */
  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops what is queued; resolves when the event being handled (if any) is done. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#items.length = 0;
    return this.#current;
  }

  async #drain(): Promise<void> {
    for (let event = this.#items.shift(); event !== undefined && !this.#stopped; event = this.#items.shift()) {
      try {
        await this.#handler(event);
      } catch (err) {
        this.#logger.error('Event handler failed', { err: errorMessage(err), reason: event.reason });
      }
    }
    this.#running = false;
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}
