export { FakeDBusConnection } from './fake-connection.js';
export type { RecordedCall } from './fake-connection.js';
