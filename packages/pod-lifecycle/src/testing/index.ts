export { makePod } from './make-pod.js';
export type { MakePodOptions } from './make-pod.js';
export { createPodLifecycleForTest } from './lifecycle-under-test.js';
export type { ComposedPodLifecycle } from '../lifecycle.js';
