export { createFakeHealthzCheck } from './fake-check.js';
export type { FakeHealthzCheck } from './fake-check.js';
