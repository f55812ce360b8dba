export { makePod } from './make-pod.js';
export type { MakePodOptions } from './make-pod.js';
