import { createHash } from 'node:crypto';
import type { Clock } from '@kubelet-ts/common';
import type {
  Image,
  ImageFsInfoRequest,
  ImageFsInfoResponse,
  ImageSpecOutput,
  ImageStatusRequest,
  ImageStatusResponse,
  ListImagesRequest,
  ListImagesResponse,
  PullImageRequest,
  PullImageResponse,
  RemoveImageRequest,
  RemoveImageResponse,
  StreamImagesRequest,
  StreamImagesResponse,
} from '../gen/messages.js';
import type { AuthConfig__Output as AuthConfigOutput } from '../gen/runtime/v1/AuthConfig.js';
import type { ImageFilter__Output } from '../gen/runtime/v1/ImageFilter.js';
import type { ImageService, ImageServiceMethod, RemoveCallOptions, StreamCallOptions, CallOptions } from '../services.js';
import { FakeServiceBase, nanos } from './fake-base.js';

/** An image the fake knows, locally or in its pretend registry. */
export interface FakeImageSeed {
  /** A reference: `busybox`, `docker.io/library/busybox:1.36`, `127.0.0.1:5000/app:v1`. */
  ref: string;
  /** `sha256:<64 hex>`; derived from the reference when omitted. */
  id?: string;
  size?: number;
  /** Repo digest (`<repo>@sha256:…`); derived when omitted. */
  digest?: string;
  uid?: number;
  username?: string;
  pinned?: boolean;
}

export interface FakeRemoteImage extends FakeImageSeed {
  /** Credentials the pretend registry requires for this image. */
  auth?: { username: string; password: string };
}

export interface FakeImageServiceOptions {
  clock?: Clock;
  /** Images present from the start. */
  images?: FakeImageSeed[];
  /**
   * When true (default), pulling a reference the registry does not know succeeds with a made-up image,
   * which suits lifecycle tests. When false, only references added with `addRemoteImage` can be pulled.
   */
  pullAnything?: boolean;
  /** The image filesystem mountpoint reported by ImageFsInfo. */
  imageFsMountpoint?: string;
}

interface StoredImage {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: number;
  uid: number | undefined;
  username: string;
  pinned: boolean;
}

/**
 * An in-memory CRI ImageService with containerd's semantics: references are normalized
 * (`busybox` → `docker.io/library/busybox:latest`), ImageStatus of a missing image is not an error,
 * RemoveImage removes every tag of the image and is idempotent, PullImage checks credentials.
 */
export class FakeImageService extends FakeServiceBase<ImageServiceMethod> implements ImageService {
  readonly #images = new Map<string, StoredImage>();
  readonly #remote = new Map<string, FakeRemoteImage>();
  readonly #pullAnything: boolean;
  readonly #mountpoint: string;

  constructor(options: FakeImageServiceOptions = {}) {
    super('ImageService', options.clock);
    this.#pullAnything = options.pullAnything ?? true;
    this.#mountpoint = options.imageFsMountpoint ?? '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs';
    for (const seed of options.images ?? []) this.addImage(seed);
  }

  // ---------------------------------------------------------------- test helpers

  /** Puts an image in the local store (as if pulled); returns its ID. A second tag for the same ID is merged. */
  addImage(seed: FakeImageSeed): string {
    const tag = normalizeImageRef(seed.ref);
    const id = seed.id ?? `sha256:${sha256(`image:${repoOf(tag)}:${tag}`)}`;
    const digest = seed.digest ?? `${repoOf(tag)}@sha256:${sha256(`manifest:${tag}`)}`;
    for (const other of this.#images.values()) {
      if (other.id !== id) other.repoTags = other.repoTags.filter((t) => t !== tag);
    }
    const existing = this.#images.get(id);
    if (existing !== undefined) {
      if (!existing.repoTags.includes(tag)) existing.repoTags.push(tag);
      if (!existing.repoDigests.includes(digest)) existing.repoDigests.push(digest);
      return id;
    }
    this.#images.set(id, {
      id,
      repoTags: tag.includes('@') ? [] : [tag],
      repoDigests: [digest],
      size: seed.size ?? 1_000_000,
      uid: seed.uid,
      username: seed.username ?? '',
      pinned: seed.pinned ?? false,
    });
    return id;
  }

  /** Makes an image pullable from the pretend registry, optionally behind credentials. */
  addRemoteImage(image: FakeRemoteImage): void {
    this.#remote.set(normalizeImageRef(image.ref), image);
  }

  /** The image a reference, ID or digest resolves to, in output form; undefined when absent. */
  getImage(ref: string): Image | undefined {
    const stored = this.#resolve(ref);
    return stored === undefined ? undefined : this.#toImage(stored);
  }

  /** Whether the local store has the image. */
  hasImage(ref: string): boolean {
    return this.#resolve(ref) !== undefined;
  }

  // ---------------------------------------------------------------- ImageService

  listImages(request: ListImagesRequest, options?: CallOptions): Promise<ListImagesResponse> {
    return this.unary('listImages', request, options, (req: { filter: ImageFilter__Output | null }) => ({
      images: this.#list(req.filter),
    }));
  }

  streamImages(request: StreamImagesRequest, options?: StreamCallOptions): AsyncIterable<StreamImagesResponse> {
    return this.stream('streamImages', request, options, (req: { filter: ImageFilter__Output | null }) => [
      { images: this.#list(req.filter) },
    ]);
  }

  imageStatus(request: ImageStatusRequest, options?: CallOptions): Promise<ImageStatusResponse> {
    return this.unary('imageStatus', request, options, (req: { image: ImageSpecOutput | null; verbose: boolean }) => {
      const stored = this.#resolve(req.image?.image ?? '');
      if (stored === undefined) return { image: null, info: {} };
      const info: Record<string, string> = req.verbose ? { imageSpec: JSON.stringify({ id: stored.id }) } : {};
      return { image: this.#toImage(stored), info };
    });
  }

  pullImage(request: PullImageRequest, options?: CallOptions): Promise<PullImageResponse> {
    return this.unary('pullImage', request, options, (req: { image: ImageSpecOutput | null; auth: AuthConfigOutput | null }) => {
      const ref = req.image?.image ?? '';
      if (ref === '') throw this.error('pullImage', 'INVALID_ARGUMENT', 'image reference is empty');
      const tag = normalizeImageRef(ref);
      const remote = this.#remote.get(tag);
      if (remote === undefined) {
        if (!this.#pullAnything) {
          throw this.error(
            'pullImage',
            'UNKNOWN',
            `failed to pull and unpack image "${tag}": failed to resolve reference "${tag}": ${tag}: not found`,
          );
        }
        return { imageRef: this.addImage({ ref: tag }) };
      }
      if (remote.auth !== undefined) {
        const given = credentials(req.auth);
        if (given === undefined || given.username !== remote.auth.username || given.password !== remote.auth.password) {
          throw this.error(
            'pullImage',
            'UNKNOWN',
            `failed to pull and unpack image "${tag}": failed to resolve reference "${tag}": pulling from host ${hostOf(tag)} failed with status code [manifests ${tagOf(tag)}]: 401 Unauthorized`,
          );
        }
      }
      return { imageRef: this.addImage({ ...remote, ref: tag }) };
    });
  }

  removeImage(request: RemoveImageRequest, options?: RemoveCallOptions): Promise<RemoveImageResponse> {
    return this.unary('removeImage', request, options, (req: { image: ImageSpecOutput | null }) => {
      const stored = this.#resolve(req.image?.image ?? '');
      // Idempotent, and the whole image goes with every tag (containerd).
      if (stored !== undefined) this.#images.delete(stored.id);
      return {};
    });
  }

  imageFsInfo(request: ImageFsInfoRequest, options?: CallOptions): Promise<ImageFsInfoResponse> {
    return this.unary('imageFsInfo', request, options, () => {
      let used = 0;
      for (const image of this.#images.values()) used += image.size;
      const usage = {
        timestamp: nanos(this.clock.now()),
        fsId: { mountpoint: this.#mountpoint },
        usedBytes: { value: String(used) },
        inodesUsed: { value: String(this.#images.size * 100) },
      };
      return { imageFilesystems: [usage], containerFilesystems: [] };
    });
  }

  // ---------------------------------------------------------------- internals

  #list(filter: ImageFilter__Output | null): Image[] {
    const wanted = filter?.image?.image ?? '';
    const images = wanted === '' ? [...this.#images.values()] : [this.#resolve(wanted)].filter((i): i is StoredImage => i !== undefined);
    return images.map((image) => this.#toImage(image));
  }

  #resolve(ref: string): StoredImage | undefined {
    if (ref === '') return undefined;
    const byId = this.#images.get(ref) ?? this.#images.get(`sha256:${ref}`);
    if (byId !== undefined) return byId;
    const normalized = normalizeImageRef(ref);
    for (const image of this.#images.values()) {
      if (image.repoTags.includes(normalized) || image.repoDigests.includes(normalized)) return image;
    }
    return undefined;
  }

  #toImage(stored: StoredImage): Image {
    return {
      id: stored.id,
      repoTags: [...stored.repoTags],
      repoDigests: [...stored.repoDigests],
      size: String(stored.size),
      uid: stored.uid === undefined ? null : { value: String(stored.uid) },
      username: stored.username,
      spec: null,
      pinned: stored.pinned,
    };
  }
}

/**
 * Normalizes an image reference as containerd does: adds `docker.io/` (and `library/` for one-part names)
 * when there is no registry host, and `:latest` when there is neither tag nor digest.
 */
export function normalizeImageRef(ref: string): string {
  let name = ref.trim();
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const hasHost = slash !== -1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasHost) name = slash === -1 ? `docker.io/library/${name}` : `docker.io/${name}`;
  if (name.includes('@')) return name;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? name : `${name}:latest`;
}

function repoOf(ref: string): string {
  const at = ref.indexOf('@');
  if (at !== -1) return ref.slice(0, at);
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash + 1);
  return colon === -1 ? ref : ref.slice(0, colon);
}

function tagOf(ref: string): string {
  return ref.slice(repoOf(ref).length + 1);
}

function hostOf(ref: string): string {
  return ref.slice(0, ref.indexOf('/'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function credentials(auth: AuthConfigOutput | null): { username: string; password: string } | undefined {
  if (auth === null) return undefined;
  if (auth.username !== '' || auth.password !== '') return { username: auth.username, password: auth.password };
  if (auth.auth !== '') {
    const decoded = Buffer.from(auth.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon !== -1) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return undefined;
}
