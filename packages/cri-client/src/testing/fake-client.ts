import type { Clock } from '@kubelet-ts/common';
import type { CriClient } from '../client.js';
import { FakeImageService } from './fake-image.js';
import type { FakeImageServiceOptions } from './fake-image.js';
import { FakeRuntimeService } from './fake-runtime.js';
import type { FakeRuntimeServiceOptions } from './fake-runtime.js';

export interface FakeCriClient extends CriClient {
  readonly runtime: FakeRuntimeService;
  readonly image: FakeImageService;
  /** True once close() was called. */
  readonly closed: boolean;
}

export interface FakeCriClientOptions {
  clock?: Clock;
  runtime?: Omit<FakeRuntimeServiceOptions, 'clock' | 'imageService'>;
  image?: Omit<FakeImageServiceOptions, 'clock'>;
}

/** A CriClient made of a FakeRuntimeService and a FakeImageService that share a clock and an image store. */
export function createFakeCriClient(options: FakeCriClientOptions = {}): FakeCriClient {
  const image = new FakeImageService({ ...options.image, ...(options.clock === undefined ? {} : { clock: options.clock }) });
  const runtime = new FakeRuntimeService({
    ...options.runtime,
    imageService: image,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  let closed = false;
  return {
    runtime,
    image,
    endpoint: 'unix:///fake/cri.sock',
    imageEndpoint: 'unix:///fake/cri.sock',
    get closed() {
      return closed;
    },
    close() {
      closed = true;
    },
  };
}
