export { FakeNodeSink } from './fake-node-sink.js';
export { FakeNodeApi } from './fake-node-api.js';
export type { FakeNodeApiCall } from './fake-node-api.js';
export { FakeLeaseApi } from './fake-lease-api.js';
export type { FakeLeaseApiCall } from './fake-lease-api.js';
export { alreadyExists, apiStatusError, conflict, notFound } from './api-error.js';
export { applyMap as applyStrategicMergePatch } from './apply-patch.js';
