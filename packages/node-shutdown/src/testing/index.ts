export { FakeInhibitor } from './fakes.js';
export type { InhibitorCall } from './fakes.js';
