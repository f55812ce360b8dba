export { FakeAffinityStore, memoryTopology } from './fakes.js';
