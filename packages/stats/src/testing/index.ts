export { FakeSummaryProvider } from './fake-summary-provider.js';
export type { FakeSummaryProviderCall } from './fake-summary-provider.js';
export { newSummary, newPodStats } from './builders.js';
export type { NewSummaryOptions, NewPodStatsOptions } from './builders.js';
export { FakeHostFs, newFakeNodeHost } from './fake-host-fs.js';
export type { FakeNodeHostOptions } from './fake-host-fs.js';
