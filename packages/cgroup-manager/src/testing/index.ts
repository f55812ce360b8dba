export { FakeCgroupManager, FakePodCgroups } from './fakes.js';
export type { FakeCgroupCall, FakePodCgroupsCall } from './fakes.js';
export { createFakeCgroupTree } from './fake-cgroup-tree.js';
export type { FakeCgroupTree, FakeCgroupTreeOptions, FakeTreeMode } from './fake-cgroup-tree.js';
