import type { Summary, SummaryOptions, SummaryProvider } from '../types.js';
import { newSummary } from './builders.js';

/** One recorded {@link FakeSummaryProvider.get} call. */
export interface FakeSummaryProviderCall {
  updateStats: boolean;
  /** The `podUIDs` asked for, sorted; absent for every pod. */
  podUIDs?: string[];
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

  /** The set summary; with `podUIDs`, only those pods. */
  async get(options: SummaryOptions = {}): Promise<Summary> {
    const uids = options.podUIDs;
    this.calls.push({ updateStats: options.updateStats === true, ...(uids === undefined ? {} : { podUIDs: [...uids].sort() }) });
    if (this.#errors.length > 0) throw this.#errors.shift();
    const summary = structuredClone(this.#summary);
    if (uids !== undefined) summary.pods = summary.pods.filter((p) => uids.has(p.podRef.uid));
    return summary;
  }
}
