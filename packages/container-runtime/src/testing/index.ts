export { FakeContainerRuntime } from './fake-container-runtime.js';
export type {
  FakeContainerRuntimeOptions,
  FakePodState,
  FakeRuntimeCall,
  FakeRuntimeMethod,
  FakeSyncPodHandler,
} from './fake-container-runtime.js';
