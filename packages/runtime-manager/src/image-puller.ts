import { createHash } from 'node:crypto';
import type { Container, Pod } from '@kubelet-ts/api';
import { EventReason, defaultImagePullPolicy, isUntaggedImage, parseImageReference } from '@kubelet-ts/api';
import type { Backoff, Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import {
  EventType,
  abortable,
  createBackoff,
  errorMessage,
  formatGoDuration,
  noopEventRecorder,
  noopLogger,
  noopMetrics,
  systemClock,
} from '@kubelet-ts/common';
import type { AuthConfig, ImageService, PodSandboxConfig, PullImageResponse } from '@kubelet-ts/cri-client';
import { CriError } from '@kubelet-ts/cri-client';
import { RuntimeManagerError } from './errors.js';
import { containerRef } from './internal/events.js';
import { Semaphore } from './internal/semaphore.js';

/** Upstream image pull back-off: 10 s doubling up to 300 s. */
export const IMAGE_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_BACKOFF_MAX_MS = 300_000;

export interface ImagePullerOptions {
  imageService: ImageService;
  clock?: Clock;
  logger?: Logger;
  /**
   * Receives upstream's image events about the container (Pulling, Pulled, Failed, BackOff,
   * ErrImageNeverPull, InspectFailed). Default: dropped.
   */
  recorder?: EventRecorder;
  /** Pull one image at a time (upstream default: true). */
  serializeImagePulls?: boolean;
  /** With `serializeImagePulls: false`, the most pulls at once (default: no limit). */
  maxParallelImagePulls?: number;
  /** The per-pod image back-off; defaults to 10 s doubling to 300 s on `clock`. */
  backoff?: Backoff;
  /** Deadline of one PullImage call (default: the CRI client's). */
  pullTimeoutMs?: number;
  /**
   * The registry credentials to try for an image, in order (the pod's imagePullSecrets, the node's
   * docker config, credential plugins: @kubelet-ts/credential-provider, wired by the kubelet).
   * Default: none, an anonymous pull.
   */
  getPullCredentials?: PullCredentialsFn;
  /** Told when a pod's image pull starts and when one succeeds (the pod startup latency tracker). Default: none. */
  pullingTimeRecorder?: ImagePodPullingTimeRecorder;
  /** Upstream's kubelet_image_pull_duration_seconds{image_size_in_bytes}. Default: none. */
  metrics?: Metrics;
}

/** Upstream imagePullDurationBuckets, in seconds. */
const IMAGE_PULL_DURATION_BUCKETS: readonly number[] = [
  1, 5, 10, 20, 30, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600,
];

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Upstream imageSizeBuckets: the lower bound (exclusive) of each image_size_in_bytes label. */
const IMAGE_SIZE_BUCKETS: ReadonlyArray<readonly [number, string]> = [
  [0, '0-10MB'],
  [10 * MiB, '10MB-100MB'],
  [100 * MiB, '100MB-500MB'],
  [500 * MiB, '500MB-1GB'],
  [GiB, '1GB-5GB'],
  [5 * GiB, '5GB-10GB'],
  [10 * GiB, '10GB-20GB'],
  [20 * GiB, '20GB-30GB'],
  [30 * GiB, '30GB-40GB'],
  [40 * GiB, '40GB-60GB'],
  [60 * GiB, '60GB-100GB'],
  [100 * GiB, 'GT100GB'],
];

/** Upstream GetImageSizeBucket: "N/A" when the size is unknown (0). */
export function imageSizeBucket(sizeBytes: number): string {
  if (!(sizeBytes > 0)) return 'N/A';
  for (let i = IMAGE_SIZE_BUCKETS.length - 1; i >= 0; i--) {
    const [lowerBound, label] = IMAGE_SIZE_BUCKETS[i]!;
    if (sizeBytes > lowerBound) return label;
  }
  return '';
}

/** Upstream ImagePodPullingTimeRecorder: the pulls kubelet_pod_start_sli_duration_seconds leaves out. */
export interface ImagePodPullingTimeRecorder {
  recordImageStartedPulling(podUID: string): void;
  recordImageFinishedPulling(podUID: string): void;
}

/**
 * The credentials to try for a pull, in order; the first that pulls wins (upstream
 * kuberuntime PullImage). An empty list pulls anonymously. Rejecting fails the pull (ErrImagePull).
 */
export type PullCredentialsFn = (image: string, pod: Pod) => readonly AuthConfig[] | Promise<readonly AuthConfig[]>;

/** Upstream ImageManager.EnsureImageExists. */
export interface ImagePuller {
  /**
   * Makes sure the container's image is present per its pull policy and returns the image
   * reference the runtime resolved; the built-in puller records upstream's image events about the
   * container on the way (see `recorder`). Rejects with a RuntimeManagerError whose `reason` is the
   * upstream one (ErrImagePull, ImagePullBackOff, ErrImageNeverPull, InvalidImageName,
   * ImageInspectError; codes ERR_IMAGE_PULL…) and whose message is upstream's.
   */
  ensureImageExists(
    pod: Pod,
    container: Container,
    options?: { sandboxConfig?: PodSandboxConfig; runtimeHandler?: string; signal?: AbortSignal },
  ): Promise<string>;
}

/**
 * The runtime's own message for a CRI error (without the client's method prefix), else the error
 * chain; for the failures of several credentials, upstream's aggregate: `[first, second]`, repeated
 * messages once.
 */
function runtimeMessage(err: unknown): string {
  if (err instanceof AggregateError) {
    const messages = [...new Set(err.errors.map(runtimeMessage))];
    return messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]`;
  }
  return err instanceof CriError && err.details !== '' ? err.details : errorMessage(err);
}

// Reference grammar (distribution/reference), enough to refuse names the runtime cannot parse.
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

/**
 * Validates an image reference and adds ":latest" when it has neither tag nor digest (upstream
 * applyDefaultImageTag). Throws InvalidImageName.
 */
export function applyDefaultImageTag(image: string): string {
  const invalid = (why: string): RuntimeManagerError =>
    new RuntimeManagerError(
      'INVALID_IMAGE_NAME',
      `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${why}`,
    );
  if (image === '') throw invalid('invalid reference format');
  const ref = parseImageReference(image);
  if (ref.digest !== undefined && !DIGEST.test(ref.digest)) throw invalid('invalid reference format');
  if (ref.tag !== undefined && !TAG.test(ref.tag)) throw invalid('invalid reference format');
  const parts = ref.repository.split('/');
  const first = parts[0] ?? '';
  const hasDomain = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasDomain && !DOMAIN.test(first)) throw invalid('invalid reference format');
  const path = hasDomain ? parts.slice(1) : parts;
  if (path.length === 0 || path.some((p) => !PATH_COMPONENT.test(p))) {
    throw invalid(
      /[A-Z]/.test(ref.repository) ? 'invalid reference format: repository name must be lowercase' : 'invalid reference format',
    );
  }
  return isUntaggedImage(ref) ? `${image}:latest` : image;
}

class PullAborted extends Error {}

/** Tries each credential in order until one pulls (upstream PullImage); when all fail, every failure. */
async function pullWithEach(
  credentials: readonly AuthConfig[],
  pullWith: (auth: AuthConfig) => Promise<PullImageResponse>,
): Promise<PullImageResponse> {
  const failures: unknown[] = [];
  for (const auth of credentials) {
    try {
      return await pullWith(auth);
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length === 1) throw failures[0];
  throw new AggregateError(failures, runtimeMessage(new AggregateError(failures)));
}

/** What one PullImage call (shared by concurrent callers) found. */
interface PullOutcome {
  imageRef: string;
  /** The image size the runtime reports after the pull, '0' when it cannot say. */
  sizeBytes: string;
  /** PullImage and the size lookup, without the wait for a pull slot (upstream pullDuration). */
  pullMs: number;
}

/** Creates the image puller (upstream image_manager.go + the serial/parallel pullers). */
export function createImagePuller(options: ImagePullerOptions): ImagePuller {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const recorder = options.recorder ?? noopEventRecorder;
  const backoff = options.backoff ?? createBackoff({ initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS, clock });
  const serialize = options.serializeImagePulls ?? true;
  const limit = serialize ? 1 : (options.maxParallelImagePulls ?? Number.POSITIVE_INFINITY);
  if (!(limit >= 1)) throw new RangeError(`maxParallelImagePulls must be at least 1, got ${String(options.maxParallelImagePulls)}`);
  const semaphore = new Semaphore(limit);
  const inflight = new Map<string, Promise<PullOutcome>>();
  // When each back-off key last failed: the window runs from the last failed pull (upstream IsInBackOffSinceUpdate).
  const lastFailure = new Map<string, number>();
  const pullDuration = (options.metrics ?? noopMetrics).histogram<'image_size_in_bytes'>({
    name: 'kubelet_image_pull_duration_seconds',
    help: 'Duration in seconds to pull an image.',
    labelNames: ['image_size_in_bytes'],
    buckets: IMAGE_PULL_DURATION_BUCKETS,
  });

  const imageRefOf = async (image: string, runtimeHandler: string | undefined, signal: AbortSignal | undefined): Promise<string> => {
    const response = await options.imageService.imageStatus(
      { image: { image, ...(runtimeHandler === undefined ? {} : { runtimeHandler }) } },
      signal === undefined ? {} : { signal },
    );
    return response.image?.id ?? '';
  };

  // Best effort, as upstream's puller (GetImageSize): a failed lookup reports 0 bytes.
  const sizeOf = async (image: string, runtimeHandler: string | undefined): Promise<string> => {
    try {
      const response = await options.imageService.imageStatus({
        image: { image, ...(runtimeHandler === undefined ? {} : { runtimeHandler }) },
      });
      return String(response.image?.size ?? 0);
    } catch {
      return '0';
    }
  };

  const pull = (
    image: string,
    runtimeHandler: string | undefined,
    credentials: readonly AuthConfig[],
    request: () => Promise<PullOutcome>,
  ): Promise<PullOutcome> => {
    // Concurrent pulls of one image with the same credentials share one PullImage call. Never across
    // credentials: a pod whose secret is wrong must not get the image another pod's secret pulled.
    const key = createHash('sha256')
      .update(JSON.stringify([image, runtimeHandler ?? '', credentials]))
      .digest('hex');
    const existing = inflight.get(key);
    if (existing !== undefined) return existing;
    const started = semaphore.run(request).finally(() => inflight.delete(key));
    inflight.set(key, started);
    return started;
  };

  return {
    async ensureImageExists(pod, container, callOptions = {}) {
      // Upstream logIt: every outcome is an event about the container (messages name the image as the spec does).
      const ref = containerRef(pod, container.name);
      const record = (type: EventType, reason: string, message: string): void => recorder.event(ref, type, reason, message);
      let image: string;
      try {
        image = applyDefaultImageTag(container.image);
      } catch (err) {
        record(EventType.Warning, EventReason.FailedToInspectImage, errorMessage(err));
        throw err;
      }
      const policy = container.imagePullPolicy ?? defaultImagePullPolicy(container.image);
      const log = logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, containerName: container.name, image });
      const runtimeHandler = callOptions.runtimeHandler;

      let imageRef: string;
      try {
        imageRef = await imageRefOf(image, runtimeHandler, callOptions.signal);
      } catch (err) {
        const message = `Failed to inspect image "${container.image}": ${runtimeMessage(err)}`;
        record(EventType.Warning, EventReason.FailedToInspectImage, message);
        throw new RuntimeManagerError('IMAGE_INSPECT_ERROR', message, { cause: err });
      }
      const present = imageRef !== '';
      const shouldPull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
      if (!shouldPull) {
        if (present) {
          record(EventType.Normal, EventReason.PulledImage, `Container image "${container.image}" already present on machine`);
          return imageRef;
        }
        const message = `Container image "${container.image}" is not present with pull policy of Never`;
        record(EventType.Warning, EventReason.ErrImageNeverPullPolicy, message);
        throw new RuntimeManagerError('ERR_IMAGE_NEVER_PULL', message);
      }

      const key = `${pod.metadata.uid}_${image}`;
      const failedAt = lastFailure.get(key);
      if (failedAt !== undefined && backoff.isInBackoffSince(key, failedAt)) {
        const message = `Back-off pulling image "${container.image}"`;
        record(EventType.Normal, EventReason.BackOffPullImage, message);
        throw new RuntimeManagerError('IMAGE_PULL_BACK_OFF', message);
      }

      let credentials: readonly AuthConfig[];
      try {
        credentials = (await options.getPullCredentials?.(image, pod)) ?? [];
      } catch (err) {
        // As upstream when the keyring cannot be built: the pull fails before it starts (no event, no back-off).
        log.warn('Failed to get image pull credentials', { err: errorMessage(err) });
        throw new RuntimeManagerError(
          'ERR_IMAGE_PULL',
          `Failed to get pull credentials for image "${container.image}": ${errorMessage(err)}`,
          {
            cause: err,
          },
        );
      }
      options.pullingTimeRecorder?.recordImageStartedPulling(pod.metadata.uid);
      record(EventType.Normal, EventReason.PullingImage, `Pulling image "${container.image}"`);
      const startedAt = clock.now();
      try {
        log.info('Pulling image');
        const pulled = await abortable(
          pull(image, runtimeHandler, credentials, async () => {
            const pullStartedAt = clock.now();
            const pullWith = (auth: AuthConfig | undefined): Promise<PullImageResponse> =>
              options.imageService.pullImage(
                {
                  image: { image, ...(runtimeHandler === undefined ? {} : { runtimeHandler }) },
                  ...(auth === undefined ? {} : { auth }),
                  ...(callOptions.sandboxConfig === undefined ? {} : { sandboxConfig: callOptions.sandboxConfig }),
                },
                // Not the caller's signal: the pull may be shared; an aborted caller stops waiting instead.
                options.pullTimeoutMs === undefined ? {} : { timeoutMs: options.pullTimeoutMs },
              );
            const response = credentials.length === 0 ? await pullWith(undefined) : await pullWithEach(credentials, pullWith);
            const sizeBytes = response.imageRef === '' ? '0' : await sizeOf(image, runtimeHandler);
            return { imageRef: response.imageRef, sizeBytes, pullMs: clock.now() - pullStartedAt };
          }),
          callOptions.signal,
          () => new PullAborted('aborted', { cause: callOptions.signal?.reason }),
        );
        options.pullingTimeRecorder?.recordImageFinishedPulling(pod.metadata.uid);
        lastFailure.delete(key);
        backoff.reset(key);
        backoff.gc();
        // Both durations truncated to the millisecond and printed as Go's Duration (upstream).
        const pullTook = formatGoDuration(Math.trunc(pulled.pullMs));
        const waitTook = formatGoDuration(Math.trunc(clock.now() - startedAt));
        record(
          EventType.Normal,
          EventReason.PulledImage,
          `Successfully pulled image "${container.image}" in ${pullTook} (${waitTook} including waiting). Image size: ${pulled.sizeBytes} bytes.`,
        );
        // Upstream: the time including the wait for a pull slot, by the image's size.
        pullDuration.observe(
          { image_size_in_bytes: imageSizeBucket(Number(pulled.sizeBytes)) },
          Math.trunc(clock.now() - startedAt) / 1000,
        );
        log.info('Successfully pulled image', { imageRef: pulled.imageRef });
        return pulled.imageRef;
      } catch (err) {
        if (err instanceof PullAborted) {
          // The caller went away (pod worker cancelled): not a pull failure, no back-off, no event.
          throw new RuntimeManagerError('ERR_IMAGE_PULL', `Pulling image "${container.image}" was cancelled`, { cause: err.cause });
        }
        backoff.next(key);
        lastFailure.set(key, clock.now());
        log.warn('Failed to pull image', { err: errorMessage(err) });
        const message = `Failed to pull image "${container.image}": ${runtimeMessage(err)}`;
        record(EventType.Warning, EventReason.FailedToPullImage, message);
        throw new RuntimeManagerError('ERR_IMAGE_PULL', message, { cause: err });
      }
    },
  };
}
