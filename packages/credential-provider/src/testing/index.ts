export { FakePluginRunner } from './fake-plugin-runner.js';
export type { FakePluginReply } from './fake-plugin-runner.js';
export { dockerConfigJsonSecret } from './secrets.js';
