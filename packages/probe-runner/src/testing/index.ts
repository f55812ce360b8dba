export { FakeExec } from './fake-exec.js';
export type { FakeExecCall, FakeExecOutcome } from './fake-exec.js';
export { FakeProbeManager } from './fake-probe-manager.js';
