export { FakeStatusSink } from './fake-status-sink.js';
export type { FakeStatusSinkCall } from './fake-status-sink.js';
export { FakeApiError, FakePodStatusApi, applyPodStatusPatch } from './fake-pod-status-api.js';
export type { FakePodStatusApiCall } from './fake-pod-status-api.js';
