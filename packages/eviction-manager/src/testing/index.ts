export { FakeEvictionManager } from './fake-eviction-manager.js';
