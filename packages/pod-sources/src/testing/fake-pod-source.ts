import type { Pod } from '@kubelet-ts/api';
import type { EmitSourceEvent, PodSource, SourceContext, SourceError, SourceEvent } from '../types.js';

/**
 * A PodSource driven by the test: push snapshots, incremental changes and errors. Events pushed
 * before the consumer starts the source are delivered when it does, in order.
 */
export class FakePodSource implements PodSource {
  readonly name: string;
  /** Every event pushed, in order (delivered or not). */
  readonly events: SourceEvent[] = [];
  #emit: EmitSourceEvent | undefined;
  #pending: SourceEvent[] = [];
  #runs = 0;
  #context: SourceContext | undefined;
  #stopped = false;

  constructor(name = 'api') {
    this.name = name;
  }

  /** How many times `run` was called. */
  get runCalls(): number {
    return this.#runs;
  }

  /** True while a consumer is running this source. */
  get running(): boolean {
    return this.#emit !== undefined;
  }

  /** True once the consumer stopped the source. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The context the consumer passed to the last `run`. */
  get context(): SourceContext | undefined {
    return this.#context;
  }

  async run(emit: EmitSourceEvent, signal: AbortSignal, context?: SourceContext): Promise<void> {
    this.#runs++;
    this.#context = context;
    if (signal.aborted) return;
    this.#emit = emit;
    for (const event of this.#pending.splice(0)) emit(event);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.#emit = undefined;
    this.#stopped = true;
  }

  set(pods: Pod[]): void {
    this.push({ kind: 'set', pods });
  }
  add(pods: Pod[]): void {
    this.push({ kind: 'add', pods });
  }
  update(pods: Pod[]): void {
    this.push({ kind: 'update', pods });
  }
  /** Graceful deletion: pass pods that carry a deletionTimestamp. */
  delete(pods: Pod[]): void {
    this.push({ kind: 'delete', pods });
  }
  remove(pods: Pod[]): void {
    this.push({ kind: 'remove', pods });
  }
  error(errors: Array<Partial<SourceError> & { reason: string }>): void {
    this.push({ kind: 'error', errors: errors.map((e) => ({ source: this.name, file: '', path: '', ...e })) });
  }

  push(event: SourceEvent): void {
    this.events.push(event);
    if (this.#emit !== undefined) this.#emit(event);
    else this.#pending.push(event);
  }
}
