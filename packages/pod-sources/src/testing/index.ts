export { FakePodSource } from './fake-pod-source.js';
export { FakePodInformer } from './fake-pod-informer.js';
