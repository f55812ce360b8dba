export { makePod } from './make-pod.js';
export type { MakePodOptions } from './make-pod.js';
export { createPodLifecycleForTest } from './lifecycle-under-test.js';
export type { ComposedPodLifecycle } from '../lifecycle.js';
export { FakeMirrorPodApi } from './fake-mirror-pod-api.js';
export type { FakeMirrorPodApiCall } from './fake-mirror-pod-api.js';
export { FakeContainerEventSource } from './fake-container-event-source.js';
