import type { Container, Pod } from '@kubelet-ts/api';
import { defaultImagePullPolicy, isUntaggedImage, parseImageReference } from '@kubelet-ts/api';
import type { Backoff, Clock, Logger } from '@kubelet-ts/common';
import { abortable, createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { AuthConfig, ImageService, PodSandboxConfig } from '@kubelet-ts/cri-client';
import { CriError } from '@kubelet-ts/cri-client';
import { RuntimeManagerError } from './errors.js';
import { Semaphore } from './internal/semaphore.js';

/** Upstream image pull back-off: 10 s doubling up to 300 s. */
export const IMAGE_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_BACKOFF_MAX_MS = 300_000;

export interface ImagePullerOptions {
  imageService: ImageService;
  clock?: Clock;
  logger?: Logger;
  /** Pull one image at a time (upstream default: true). */
  serializeImagePulls?: boolean;
  /** With `serializeImagePulls: false`, the most pulls at once (default: no limit). */
  maxParallelImagePulls?: number;
  /** The per-pod image back-off; defaults to 10 s doubling to 300 s on `clock`. */
  backoff?: Backoff;
  /** Deadline of one PullImage call (default: the CRI client's). */
  pullTimeoutMs?: number;
  /** Registry credentials for an image (from the pod's imagePullSecrets, wired by the kubelet). */
  getPullCredentials?: (image: string, pod: Pod) => AuthConfig | undefined;
}

/** Upstream ImageManager.EnsureImageExists. */
export interface ImagePuller {
  /**
   * Makes sure the container's image is present per its pull policy and returns the image
   * reference the runtime resolved. Rejects with a RuntimeManagerError whose `reason` is the
   * upstream one (ErrImagePull, ImagePullBackOff, ErrImageNeverPull, InvalidImageName,
   * ImageInspectError; codes ERR_IMAGE_PULL…) and whose message is upstream's.
   */
  ensureImageExists(
    pod: Pod,
    container: Container,
    options?: { sandboxConfig?: PodSandboxConfig; runtimeHandler?: string; signal?: AbortSignal },
  ): Promise<string>;
}

/** The runtime's own message for a CRI error (without the client's method prefix), else the error chain. */
function runtimeMessage(err: unknown): string {
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

/** Creates the image puller (upstream image_manager.go + the serial/parallel pullers). */
export function createImagePuller(options: ImagePullerOptions): ImagePuller {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const backoff = options.backoff ?? createBackoff({ initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS, clock });
  const serialize = options.serializeImagePulls ?? true;
  const limit = serialize ? 1 : (options.maxParallelImagePulls ?? Number.POSITIVE_INFINITY);
  if (!(limit >= 1)) throw new RangeError(`maxParallelImagePulls must be at least 1, got ${String(options.maxParallelImagePulls)}`);
  const semaphore = new Semaphore(limit);
  const inflight = new Map<string, Promise<string>>();
  // When each back-off key last failed: the window runs from the last failed pull (upstream IsInBackOffSinceUpdate).
  const lastFailure = new Map<string, number>();

  const imageRefOf = async (image: string, runtimeHandler: string | undefined, signal: AbortSignal | undefined): Promise<string> => {
    const response = await options.imageService.imageStatus(
      { image: { image, ...(runtimeHandler === undefined ? {} : { runtimeHandler }) } },
      signal === undefined ? {} : { signal },
    );
    return response.image?.id ?? '';
  };

  const pull = (image: string, request: () => Promise<string>): Promise<string> => {
    // Concurrent pulls of one image share one PullImage call.
    const existing = inflight.get(image);
    if (existing !== undefined) return existing;
    const started = semaphore.run(request).finally(() => inflight.delete(image));
    inflight.set(image, started);
    return started;
  };

  return {
    async ensureImageExists(pod, container, callOptions = {}) {
      const image = applyDefaultImageTag(container.image);
      const policy = container.imagePullPolicy ?? defaultImagePullPolicy(container.image);
      const log = logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, containerName: container.name, image });

      let imageRef: string;
      try {
        imageRef = await imageRefOf(image, callOptions.runtimeHandler, callOptions.signal);
      } catch (err) {
        throw new RuntimeManagerError('IMAGE_INSPECT_ERROR', `Failed to inspect image "${container.image}": ${runtimeMessage(err)}`, {
          cause: err,
        });
      }
      const present = imageRef !== '';
      const shouldPull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
      if (!shouldPull) {
        if (present) return imageRef;
        throw new RuntimeManagerError(
          'ERR_IMAGE_NEVER_PULL',
          `Container image "${container.image}" is not present with pull policy of Never`,
        );
      }

      const key = `${pod.metadata.uid}_${image}`;
      const failedAt = lastFailure.get(key);
      if (failedAt !== undefined && backoff.isInBackoffSince(key, failedAt)) {
        throw new RuntimeManagerError('IMAGE_PULL_BACK_OFF', `Back-off pulling image "${container.image}"`);
      }

      const auth = options.getPullCredentials?.(image, pod);
      try {
        log.info('Pulling image');
        const ref = await abortable(
          pull(image, async () => {
            const response = await options.imageService.pullImage(
              {
                image: { image, ...(callOptions.runtimeHandler === undefined ? {} : { runtimeHandler: callOptions.runtimeHandler }) },
                ...(auth === undefined ? {} : { auth }),
                ...(callOptions.sandboxConfig === undefined ? {} : { sandboxConfig: callOptions.sandboxConfig }),
              },
              // Not the caller's signal: the pull may be shared; an aborted caller stops waiting instead.
              options.pullTimeoutMs === undefined ? {} : { timeoutMs: options.pullTimeoutMs },
            );
            return response.imageRef;
          }),
          callOptions.signal,
          () => new PullAborted('aborted', { cause: callOptions.signal?.reason }),
        );
        lastFailure.delete(key);
        backoff.reset(key);
        backoff.gc();
        log.info('Successfully pulled image', { imageRef: ref });
        return ref;
      } catch (err) {
        if (err instanceof PullAborted) {
          // The caller went away (pod worker cancelled): not a pull failure, no back-off.
          throw new RuntimeManagerError('ERR_IMAGE_PULL', `Pulling image "${container.image}" was cancelled`, { cause: err.cause });
        }
        backoff.next(key);
        lastFailure.set(key, clock.now());
        log.warn('Failed to pull image', { err: errorMessage(err) });
        throw new RuntimeManagerError('ERR_IMAGE_PULL', `Failed to pull image "${container.image}": ${runtimeMessage(err)}`, {
          cause: err,
        });
      }
    },
  };
}
