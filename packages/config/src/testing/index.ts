export { createFakeFileSystem } from './fake-file-system.js';
export type { FakeFileSystem } from './fake-file-system.js';
export { kubeletConfigurationFixture } from './fixture.js';
