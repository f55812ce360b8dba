export { FakeImageGC } from './fake-image-gc.js';
export type { FakeImageGCCall, FakeImageGCMethod } from './fake-image-gc.js';
