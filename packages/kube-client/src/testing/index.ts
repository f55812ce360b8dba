export { FakeKubeClient } from './fake-kube-client.js';
export type { FakeFailure, FakeKubeCall, FakeWatchEvent } from './fake-kube-client.js';
export { FakeInformer } from './fake-informer.js';
