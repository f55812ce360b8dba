export { FakeRuntimeService, CONTAINERD_1_6_UNIMPLEMENTED } from './fake-runtime.js';
export type { FakeExecHandler, FakeExecResult, FakeRuntimeServiceOptions } from './fake-runtime.js';
export { FakeImageService, normalizeImageRef } from './fake-image.js';
export type { FakeImageSeed, FakeImageServiceOptions, FakeRemoteImage } from './fake-image.js';
export { nanos } from './fake-base.js';
export type { InjectErrorOptions, RecordedCall } from './fake-base.js';
export { createFakeCriClient } from './fake-client.js';
export type { FakeCriClient, FakeCriClientOptions } from './fake-client.js';
