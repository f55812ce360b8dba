import type { Summary, SummaryProvider } from '../types.js';
import { newSummary } from './builders.js';

/** One recorded {@link FakeSummaryProvider.get} call. */
export interface FakeSummaryProviderCall {
  updateStats: boolean;
}

/**
 * A {@link SummaryProvider} that returns a settable summary (a deep copy each time, so callers
 * cannot change it), records every call, and fails the next calls with `failNext(err)`.
 */
export class FakeSummaryProvider implements SummaryProvider {
  readonly calls: FakeSummaryProviderCall[] = [];
  #summary: Summary;
  #errors: unknown[] = [];

  constructor(summary: Summary = newSummary()) {
    this.#summary = summary;
  }

  /** The summary returned from now on. */
  set(summary: Summary): void {
    this.#summary = summary;
  }

  /** The summary currently returned (not a copy). */
  get summary(): Summary {
    return this.#summary;
  }

  /** The next `get` rejects with `err` (queued: call it twice to fail twice). */
  failNext(err: unknown): void {
    this.#errors.push(err);
  }

  async get(options: { updateStats?: boolean; signal?: AbortSignal } = {}): Promise<Summary> {
    this.calls.push({ updateStats: options.updateStats === true });
    if (this.#errors.length > 0) throw this.#errors.shift();
    return structuredClone(this.#summary);
  }
}
