export { FakeObjectManager } from './fake-object-manager.js';
export { FakeTokenRequestApi } from './fake-token-request-api.js';
export type { FakeTokenRequestCall } from './fake-token-request-api.js';
