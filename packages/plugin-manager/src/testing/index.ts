export { createFakeRegistrationServer } from './fake-registration-server.js';
export type { FakeRegistrationServer, FakeRegistrationServerOptions, ReceivedRegistrationStatus } from './fake-registration-server.js';
export { FakePluginHandler } from './fake-plugin-handler.js';
export type { FakePluginHandlerCall } from './fake-plugin-handler.js';
