import * as grpc from '@grpc/grpc-js';
import { abortable, noopLogger } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { CriError, isNotFound } from './errors.js';
import type { VersionResponse } from './gen/messages.js';
import { serviceMethods } from './internal/loader.js';
import type { AnyMethodDefinition } from './internal/loader.js';
import { toGrpcTarget } from './internal/endpoint.js';
import { IGNORABLE_NOT_FOUND } from './internal/policy.js';
import { IMAGE_SERVICE_METHODS, RUNTIME_SERVICE_METHODS } from './services.js';
import type { CallOptions, ImageService, RemoveCallOptions, RuntimeService, StreamCallOptions } from './services.js';

/** Deadlines of the client, in milliseconds; 0 means no deadline. */
export interface CriTimeouts {
  /** Every call not listed below. Upstream runtimeRequestTimeout: 2 minutes. */
  defaultMs: number;
  /** Version, Status, RuntimeConfig, the *Status and non-stats List* calls: cheap reads that should fail fast. */
  readMs: number;
  /** PullImage. Upstream sets none; we bound it, generously. */
  pullImageMs: number;
}

export const DEFAULT_CRI_TIMEOUTS: Readonly<CriTimeouts> = Object.freeze({
  defaultMs: 120_000,
  readMs: 10_000,
  pullImageMs: 30 * 60_000,
});

/** Upstream maxMsgSize (pkg/kubelet/cri/remote): 16 MiB both ways. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The CRI API version the client announces in VersionRequest (upstream kubeRuntimeAPIVersion). */
export const KUBE_RUNTIME_API_VERSION = '0.1.0';

export interface CriClientOptions {
  /** Runtime endpoint: `unix:///run/containerd/containerd.sock` or a bare socket path. */
  endpoint: string;
  /** Image service endpoint; defaults to `endpoint`. */
  imageEndpoint?: string;
  timeouts?: Partial<CriTimeouts>;
  /**
   * grpc-js reconnect backoff. Defaults (250 ms up to 2 s) are far below grpc's (1 s up to 120 s) so that
   * calls succeed again within seconds once a restarted runtime is back.
   */
  reconnectBackoff?: { initialMs?: number; maxMs?: number };
  /** Max send/receive message size; default 16 MiB. */
  maxMessageBytes?: number;
  logger?: Logger;
}

/** A connected pair of CRI services. Construction never blocks or throws for a missing socket. */
export interface CriClient {
  readonly runtime: RuntimeService;
  readonly image: ImageService;
  /** The normalized gRPC targets. */
  readonly endpoint: string;
  readonly imageEndpoint: string;
  /** Closes the channels; later calls fail with CANCELLED/UNAVAILABLE. */
  close(): void;
}

/** Cheap reads: they get the short `readMs` deadline. */
const READ_METHODS: ReadonlySet<string> = new Set([
  'version',
  'status',
  'runtimeConfig',
  'podSandboxStatus',
  'listPodSandbox',
  'containerStatus',
  'listContainers',
  'listImages',
  'imageStatus',
]);

/** Methods whose deadline is extended by the request's `timeout` seconds (upstream does the same). */
const EXTENDED_BY_REQUEST_TIMEOUT: ReadonlySet<string> = new Set(['stopContainer', 'execSync', 'checkpointContainer']);

export function createCriClient(options: CriClientOptions): CriClient {
  const timeouts = resolveTimeouts(options.timeouts);
  const logger = options.logger ?? noopLogger;
  const maxMessageBytes = positiveInteger(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, 'maxMessageBytes');
  const channelOptions: grpc.ChannelOptions = {
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.initial_reconnect_backoff_ms': positiveInteger(options.reconnectBackoff?.initialMs ?? 250, 'reconnectBackoff.initialMs'),
    'grpc.max_reconnect_backoff_ms': positiveInteger(options.reconnectBackoff?.maxMs ?? 2_000, 'reconnectBackoff.maxMs'),
  };
  const runtimeTarget = target(options.endpoint, 'endpoint');
  const imageTarget = options.imageEndpoint === undefined ? runtimeTarget : target(options.imageEndpoint, 'imageEndpoint');

  const runtimeConnection = new Connection(
    'RuntimeService',
    runtimeTarget,
    channelOptions,
    timeouts,
    logger.child({ endpoint: runtimeTarget }),
    true,
  );
  const imageConnection = new Connection(
    'ImageService',
    imageTarget,
    channelOptions,
    timeouts,
    logger.child({ endpoint: imageTarget }),
    false,
  );

  return {
    runtime: runtimeConnection.service(RUNTIME_SERVICE_METHODS) as unknown as RuntimeService,
    image: imageConnection.service(IMAGE_SERVICE_METHODS) as unknown as ImageService,
    endpoint: runtimeTarget,
    imageEndpoint: imageTarget,
    close() {
      runtimeConnection.close();
      imageConnection.close();
    },
  };
}

type UnaryFn = (request: unknown, options?: RemoveCallOptions) => Promise<unknown>;
type StreamFn = (request: unknown, options?: StreamCallOptions) => AsyncIterable<unknown>;

/** One gRPC client (channel) for one CRI service. Private: callers only see the service interfaces. */
class Connection {
  readonly #service: 'RuntimeService' | 'ImageService';
  readonly #target: string;
  readonly #client: grpc.Client;
  readonly #methods: Map<string, AnyMethodDefinition>;
  readonly #timeouts: CriTimeouts;
  readonly #logger: Logger;
  readonly #negotiatesVersion: boolean;
  #version: VersionResponse | undefined;
  #negotiation: Promise<VersionResponse> | undefined;
  #closed = false;

  constructor(
    service: 'RuntimeService' | 'ImageService',
    grpcTarget: string,
    channelOptions: grpc.ChannelOptions,
    timeouts: CriTimeouts,
    logger: Logger,
    negotiatesVersion: boolean,
  ) {
    this.#service = service;
    this.#target = grpcTarget;
    this.#client = new grpc.Client(grpcTarget, grpc.credentials.createInsecure(), channelOptions);
    this.#methods = serviceMethods(service);
    this.#timeouts = timeouts;
    this.#logger = logger;
    this.#negotiatesVersion = negotiatesVersion;
  }

  service(names: readonly string[]): Record<string, UnaryFn | StreamFn> {
    const out: Record<string, UnaryFn | StreamFn> = {};
    for (const name of names) {
      const definition = this.#methods.get(name);
      if (definition === undefined) throw new Error(`${this.#service}.${name} missing from the CRI descriptor`);
      out[name] = definition.responseStream
        ? (request: unknown, options?: StreamCallOptions) => this.#stream(name, definition, request, options)
        : (request: unknown, options?: RemoveCallOptions) => this.#unary(name, definition, request, options);
    }
    return out;
  }

  close(): void {
    this.#closed = true;
    this.#client.close();
  }

  #closedError(rpc: string): CriError {
    return new CriError('CANCELLED', `${rpc} (${this.#target}): CANCELLED: the CRI client was closed`, { method: rpc });
  }

  async #unary(name: string, definition: AnyMethodDefinition, request: unknown, options: RemoveCallOptions = {}): Promise<unknown> {
    const rpc = rpcName(definition);
    try {
      if (name === 'version') {
        const response = (await this.#call(rpc, definition, request, options, this.#timeoutFor(name, request, options))) as VersionResponse;
        return response;
      }
      if (this.#negotiatesVersion) await this.#ensureVersion(rpc, options.signal);
      return await this.#call(rpc, definition, request, options, this.#timeoutFor(name, request, options));
    } catch (err) {
      if (options.ignoreNotFound === true && IGNORABLE_NOT_FOUND.has(name) && isNotFound(err)) {
        this.#logger.debug('not found, treated as success', { method: rpc });
        return {};
      }
      throw err;
    }
  }

  #call(rpc: string, definition: AnyMethodDefinition, request: unknown, options: CallOptions, timeoutMs: number): Promise<unknown> {
    const { signal } = options;
    if (signal?.aborted === true) {
      return Promise.reject(
        new CriError('CANCELLED', `${rpc} (${this.#target}): CANCELLED: aborted before the call`, { method: rpc, cause: signal.reason }),
      );
    }
    if (this.#closed) return Promise.reject(this.#closedError(rpc));
    return new Promise((resolve, reject) => {
      const callOptions: grpc.CallOptions = timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {};
      const call = this.#client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        new grpc.Metadata(),
        callOptions,
        (err, response) => {
          signal?.removeEventListener('abort', onAbort);
          if (err !== null) {
            const error = CriError.fromRpc(err, rpc, this.#target);
            this.#logger.debug('CRI call failed', { method: rpc, code: error.code, err: error.message });
            reject(error);
          } else {
            resolve(response);
          }
        },
      );
      const onAbort = (): void => call.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async *#stream(
    name: string,
    definition: AnyMethodDefinition,
    request: unknown,
    options: StreamCallOptions = {},
  ): AsyncGenerator<unknown> {
    const rpc = rpcName(definition);
    const { signal } = options;
    if (signal?.aborted === true) return;
    if (this.#closed) throw this.#closedError(rpc);
    if (this.#negotiatesVersion) await this.#ensureVersion(rpc, signal);
    const timeoutMs = options.timeoutMs ?? (name === 'getContainerEvents' ? 0 : this.#timeouts.defaultMs);
    const call = this.#client.makeServerStreamRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      new grpc.Metadata(),
      timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {},
    );
    const onAbort = (): void => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const item of call) yield item;
    } catch (err) {
      // Cancelled through the signal: the stream simply ends.
      if (isAborted(signal)) return;
      throw CriError.fromRpc(err, rpc, this.#target);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      call.cancel();
    }
  }

  /**
   * Checks once per connection that the runtime speaks CRI v1 (Version.runtimeApiVersion === "v1"), and again
   * whenever the channel is not READY, i.e. after the runtime went away and came back.
   */
  async #ensureVersion(rpc: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.#closed) throw this.#closedError(rpc);
    const state = this.#client.getChannel().getConnectivityState(false);
    if (this.#version !== undefined && state === grpc.connectivityState.READY) return;
    if (this.#version !== undefined) {
      this.#logger.debug('connection not ready, checking the runtime version again', { method: rpc });
      this.#version = undefined;
    }
    // Shared by concurrent callers, so it does not take any one caller's signal; each caller can still abort its wait.
    if (signal?.aborted === true) {
      throw new CriError('CANCELLED', `${rpc} (${this.#target}): CANCELLED: aborted before the call`, {
        method: rpc,
        cause: signal.reason,
      });
    }
    if (this.#negotiation === undefined) {
      const negotiation = this.#negotiate().finally(() => {
        this.#negotiation = undefined;
      });
      // Callers see the failure through their own await; an abandoned negotiation must not be an unhandled rejection.
      negotiation.catch(() => undefined);
      this.#negotiation = negotiation;
    }
    try {
      await abortable(
        this.#negotiation,
        signal,
        () =>
          new CriError('CANCELLED', `${rpc} (${this.#target}): CANCELLED: aborted while checking the runtime version`, {
            method: rpc,
            cause: signal?.reason,
          }),
      );
    } catch (err) {
      const error = CriError.fromRpc(err, rpc, this.#target);
      if (error.method === rpc || error.code === 'VERSION_MISMATCH') throw error;
      // Report the failure against the caller's method, keeping the Version failure as the cause.
      throw new CriError(error.code, error.message.replace(error.method, rpc), {
        grpcCode: error.grpcCode,
        method: rpc,
        details: error.details,
        cause: error,
      });
    }
  }

  async #negotiate(): Promise<VersionResponse> {
    const definition = this.#methods.get('version');
    if (definition === undefined) throw new Error('RuntimeService.version missing from the CRI descriptor');
    const rpc = rpcName(definition);
    let response: VersionResponse;
    try {
      response = (await this.#call(rpc, definition, { version: KUBE_RUNTIME_API_VERSION }, {}, this.#timeouts.readMs)) as VersionResponse;
    } catch (err) {
      if (err instanceof CriError && err.code === 'UNIMPLEMENTED') {
        throw new CriError(
          'VERSION_MISMATCH',
          `${rpc} (${this.#target}): VERSION_MISMATCH: the runtime does not implement CRI v1 (runtime.v1.RuntimeService)`,
          {
            method: rpc,
            cause: err,
          },
        );
      }
      throw err;
    }
    if (response.runtimeApiVersion !== 'v1') {
      throw new CriError(
        'VERSION_MISMATCH',
        `${rpc} (${this.#target}): VERSION_MISMATCH: runtime ${response.runtimeName} ${response.runtimeVersion} reports CRI API version "${response.runtimeApiVersion}", expected "v1"`,
        { method: rpc },
      );
    }
    this.#version = response;
    this.#logger.debug('CRI runtime version', {
      runtimeName: response.runtimeName,
      runtimeVersion: response.runtimeVersion,
      runtimeApiVersion: response.runtimeApiVersion,
    });
    return response;
  }

  #timeoutFor(name: string, request: unknown, options: CallOptions): number {
    if (options.timeoutMs !== undefined) return Math.max(0, options.timeoutMs);
    if (name === 'pullImage') return this.#timeouts.pullImageMs;
    if (READ_METHODS.has(name)) return this.#timeouts.readMs;
    if (EXTENDED_BY_REQUEST_TIMEOUT.has(name)) return this.#timeouts.defaultMs + requestTimeoutSeconds(request) * 1000;
    return this.#timeouts.defaultMs;
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** `runtime.v1.RuntimeService/StopContainer` from the method path. */
function rpcName(definition: AnyMethodDefinition): string {
  return definition.path.replace(/^\//, '');
}

/** The `timeout` field (seconds, int64 in any input form) of StopContainer/ExecSync/CheckpointContainer requests. */
function requestTimeoutSeconds(request: unknown): number {
  if (typeof request !== 'object' || request === null) return 0;
  const value: unknown = (request as { timeout?: unknown }).timeout;
  const seconds =
    typeof value === 'number'
      ? value
      : typeof value === 'string'
        ? Number(value)
        : typeof value === 'object' && value !== null && typeof (value as { toNumber?: unknown }).toNumber === 'function'
          ? (value as { toNumber(): number }).toNumber()
          : 0;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

function resolveTimeouts(partial: Partial<CriTimeouts> | undefined): CriTimeouts {
  const merged = { ...DEFAULT_CRI_TIMEOUTS, ...partial };
  for (const [key, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new CriError(
        'INVALID_ARGUMENT',
        `createCriClient: INVALID_ARGUMENT: timeouts.${key} must be a non-negative number of milliseconds, got ${String(value)}`,
        {
          method: 'createCriClient',
        },
      );
    }
  }
  return merged;
}

function positiveInteger(value: number, field: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new CriError('INVALID_ARGUMENT', `createCriClient: INVALID_ARGUMENT: ${field} must be a positive integer, got ${String(value)}`, {
      method: 'createCriClient',
    });
  }
  return value;
}

function target(endpoint: unknown, field: string): string {
  if (typeof endpoint !== 'string' || endpoint.trim() === '') {
    throw new CriError(
      'INVALID_ARGUMENT',
      `createCriClient: INVALID_ARGUMENT: ${field} must be a non-empty string like unix:///run/containerd/containerd.sock`,
      {
        method: 'createCriClient',
      },
    );
  }
  return toGrpcTarget(endpoint);
}
