import { systemClock } from '@kubelet-ts/common';
import type { Clock } from '@kubelet-ts/common';
import { CriError, isNotFound } from '../errors.js';
import type { CriErrorCode } from '../errors.js';
import { serviceMethods } from '../internal/loader.js';
import type { AnyMethodDefinition } from '../internal/loader.js';
import { IGNORABLE_NOT_FOUND } from '../internal/policy.js';
import type { RemoveCallOptions, StreamCallOptions } from '../services.js';

/** One recorded call: the method name and the request exactly as the caller passed it. */
export interface RecordedCall<M extends string = string> {
  method: M;
  request: unknown;
  /** Clock time (ms) of the call. */
  at: number;
}

export interface InjectErrorOptions {
  /** How many calls fail; default 1 (like cri-api's fake, one injected error per call). Use Infinity to fail until cleared. */
  times?: number;
}

interface Injected {
  error: Error;
  remaining: number;
}

/**
 * What both fakes share: call recording, injected errors and delays, and the proto round-trip that
 * makes requests and responses look exactly as they do through the real client (output form, int64 as
 * strings, enums as names, bytes as Buffer, every field present).
 */
export abstract class FakeServiceBase<M extends string> {
  /** Every call, in order. */
  readonly calls: RecordedCall<M>[] = [];
  protected readonly clock: Clock;
  readonly #service: 'RuntimeService' | 'ImageService';
  readonly #methods: Map<string, AnyMethodDefinition>;
  readonly #errors = new Map<string, Injected[]>();
  readonly #delays = new Map<string, number>();

  protected constructor(service: 'RuntimeService' | 'ImageService', clock: Clock | undefined) {
    this.#service = service;
    this.clock = clock ?? systemClock;
    this.#methods = serviceMethods(service);
  }

  /** Makes the next call(s) of `method` fail with `error` (a CriError is built from a code name). */
  injectError(method: M, error: Error | CriErrorCode, options: InjectErrorOptions = {}): void {
    const err =
      typeof error === 'string'
        ? new CriError(error, `${this.rpc(method)}: ${error}: injected by the fake`, { method: this.rpc(method) })
        : error;
    const queue = this.#errors.get(method) ?? [];
    queue.push({ error: err, remaining: options.times ?? 1 });
    this.#errors.set(method, queue);
  }

  /** Drops injected errors, of one method or all. */
  clearErrors(method?: M): void {
    if (method === undefined) this.#errors.clear();
    else this.#errors.delete(method);
  }

  /** Every call of `method` waits `ms` on the injected clock first (0 removes the delay). */
  setDelay(method: M, ms: number): void {
    if (ms <= 0) this.#delays.delete(method);
    else this.#delays.set(method, ms);
  }

  /** The recorded calls of one method. */
  callsOf(method: M): RecordedCall<M>[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Method names in call order; handy for asserting a sequence. */
  get methodsCalled(): M[] {
    return this.calls.map((call) => call.method);
  }

  /** The full gRPC method name, e.g. runtime.v1.RuntimeService/StopContainer. */
  protected rpc(method: string): string {
    const definition = this.#methods.get(method);
    return definition === undefined ? `runtime.v1.${this.#service}/${method}` : definition.path.replace(/^\//, '');
  }

  protected error(method: string, code: CriErrorCode, message: string): CriError {
    const rpc = this.rpc(method);
    return new CriError(code, `${rpc}: ${code}: ${message}`, { method: rpc, details: message });
  }

  /**
   * Runs one unary call: records it, normalizes the request to output form, applies injected errors and
   * delays, honours the signal, `timeoutMs` and `ignoreNotFound`, and normalizes the response.
   */
  protected async unary<Req, Res>(
    method: M,
    request: unknown,
    options: RemoveCallOptions | undefined,
    handle: (request: Req) => NoInfer<Res> | Promise<NoInfer<Res>>,
  ): Promise<Res> {
    this.calls.push({ method, request, at: this.clock.now() });
    try {
      const normalized = this.#normalizeRequest(method, request) as Req;
      await this.#prelude(method, options);
      const response = await handle(normalized);
      return this.#normalizeResponse(method, response) as Res;
    } catch (err) {
      const error = CriError.fromRpc(err, this.rpc(method));
      if (options?.ignoreNotFound === true && IGNORABLE_NOT_FOUND.has(method) && isNotFound(error)) return {} as Res;
      throw error;
    }
  }

  /** Runs one server-streaming call over the batches `produce` yields; ends quietly on abort. */
  protected async *stream<Req, Res>(
    method: M,
    request: unknown,
    options: StreamCallOptions | undefined,
    produce: (request: Req, signal: AbortSignal | undefined) => AsyncIterable<NoInfer<Res>> | Iterable<NoInfer<Res>>,
  ): AsyncGenerator<Res> {
    this.calls.push({ method, request, at: this.clock.now() });
    const normalized = this.#normalizeRequest(method, request) as Req;
    if (options?.signal?.aborted === true) return;
    await this.#prelude(method, options?.signal === undefined ? undefined : { signal: options.signal });
    for await (const item of produce(normalized, options?.signal)) {
      if (aborted(options?.signal)) return;
      yield this.#normalizeResponse(method, item) as Res;
    }
  }

  async #prelude(method: string, options: RemoveCallOptions | undefined): Promise<void> {
    const signal = options?.signal;
    if (signal?.aborted === true) throw this.error(method, 'CANCELLED', 'aborted before the call');
    const queue = this.#errors.get(method);
    const injected = queue?.[0];
    if (queue !== undefined && injected !== undefined) {
      injected.remaining -= 1;
      if (injected.remaining <= 0) queue.shift();
      throw injected.error;
    }
    const delay = this.#delays.get(method);
    if (delay === undefined) return;
    const timeoutMs = options?.timeoutMs;
    const waitMs = timeoutMs !== undefined && timeoutMs > 0 ? Math.min(delay, timeoutMs) : delay;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch {
      throw this.error(method, 'CANCELLED', 'call cancelled');
    }
    if (waitMs < delay) throw this.error(method, 'DEADLINE_EXCEEDED', `deadline of ${String(timeoutMs)} ms exceeded`);
  }

  #normalizeRequest(method: string, request: unknown): unknown {
    const definition = this.#methods.get(method);
    if (definition === undefined) return request;
    try {
      return definition.requestDeserialize(definition.requestSerialize(request ?? {}));
    } catch (err) {
      throw new CriError('INVALID_ARGUMENT', `${this.rpc(method)}: INVALID_ARGUMENT: request does not encode: ${String(err)}`, {
        method: this.rpc(method),
        cause: err,
      });
    }
  }

  #normalizeResponse(method: string, response: unknown): unknown {
    const definition = this.#methods.get(method);
    if (definition === undefined) return response;
    return definition.responseDeserialize(definition.responseSerialize(response));
  }
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Nanoseconds since the epoch as a decimal string (CRI int64 timestamps), from a millisecond clock. */
export function nanos(ms: number): string {
  return (BigInt(Math.trunc(ms)) * 1_000_000n).toString();
}
