export { FakeSummaryProvider, sampleLines } from './fake-summary-provider.js';
