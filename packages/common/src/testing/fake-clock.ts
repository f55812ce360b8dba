import { sleepWith } from '../clock.js';
import type { Clock, TimerHandle } from '../clock.js';

interface Timer {
  id: number;
  at: number;
  intervalMs: number | undefined;
  fn: () => void;
}

/**
 * A clock whose time moves only when a test says so. `advance` fires due timers in time
 * order and lets promise callbacks run between them, so async code driven by timers
 * behaves as it would in real time.
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers = new Map<number, Timer>();

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.#add(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.#add(fn, ms, Math.max(1, ms));
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  clearInterval(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.at > target) break;
      this.#now = Math.max(this.#now, next.at);
      if (next.intervalMs === undefined) this.#timers.delete(next.id);
      else next.at += next.intervalMs;
      next.fn();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /** Sets the wall clock without firing timers (a clock jump). */
  setNow(ms: number): void {
    this.#now = ms;
  }

  #add(fn: () => void, ms: number, intervalMs: number | undefined): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), intervalMs, fn });
    return id;
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.#timers.values()) {
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.id < best.id)) best = timer;
    }
    return best;
  }
}

/** Lets pending promise callbacks (and the ones they queue) run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
