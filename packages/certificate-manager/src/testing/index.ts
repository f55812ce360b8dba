export { FakeApiError, FakeCsrApi } from './fake-csr-api.js';
export type { FakeCsrApiCall, FakeCsrApiOptions, FakeStoredCsr } from './fake-csr-api.js';
export { createTestCa } from './test-ca.js';
export type { IssueOptions, TestCa, TestCaOptions } from './test-ca.js';
