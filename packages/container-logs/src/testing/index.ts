export { FakeContainerLogManager, createFakeLocator, writeCriLog, numberedLines } from './fakes.js';
export type { FakeLocatorEntry, WriteCriLogOptions } from './fakes.js';
