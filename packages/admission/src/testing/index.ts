export { FakePodAdmitHandler, testNode } from './fakes.js';
export type { TestNodeOptions } from './fakes.js';
