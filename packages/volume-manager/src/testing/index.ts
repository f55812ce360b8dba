export { FakeMounter, recordingMounter } from './fake-mounter.js';
export type { MountCall } from './fake-mounter.js';
export { FakeObjectSource, FakeTokenSource } from './fake-sources.js';
export { FakeVolumeManager } from './fake-volume-manager.js';
export type { FakeVolumeManagerCall } from './fake-volume-manager.js';
export { createFakeCsiNodeServer, csiStatus } from './fake-csi-node-server.js';
export type { FakeCsiNodeServer, FakeCsiNodeServerOptions, CsiHandler, CsiRequest } from './fake-csi-node-server.js';
export { FakeClock } from '@kubelet-ts/common/testing';
