export { createFakeHealthzCheck } from './fake-check.js';
export type { FakeHealthzCheck } from './fake-check.js';
export { FakeSubjectAccessReviewer, FakeTokenReviewer } from './fake-reviewers.js';
export type { FakeSarStatus } from './fake-reviewers.js';
