export { newPod, newContainer } from './builders.js';
export type { NewPodOptions } from './builders.js';
