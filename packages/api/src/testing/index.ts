export { newPod, newContainer, newNodeInfo } from './builders.js';
export type { NewPodOptions } from './builders.js';
