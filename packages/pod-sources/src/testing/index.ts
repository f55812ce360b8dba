export { FakePodSource } from './fake-pod-source.js';
