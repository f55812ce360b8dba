export { cpuTopology, FakeCpuManagerRuntime } from './fakes.js';
