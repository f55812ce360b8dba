/**
 * Helpers shared by the integration tests of every package: they run against the real
 * containerd of scripts/test-runtime.sh, whose variables the jest global setup has loaded.
 */
export { Cleanup, runtimeEnv, waitFor } from './runtime.js';
export {
  SUITE_LABEL,
  TEST_NAMESPACE,
  podCgroupParent,
  podLogDirectory,
  removeCgroupTree,
  removeRuntimePod,
  removeTestPod,
  runTestSandbox,
  tempDir,
  testPod,
  testSandbox,
} from './pods.js';
export type { PodRemovalRuntime, SandboxRuntime, TestPodRef, TestSandbox, TestSandboxConfig, TestSandboxOptions } from './pods.js';
export { useRuntimeSuite } from './suite.js';
export type { RuntimeSuite, RuntimeSuiteClient, RuntimeSuiteOptions } from './suite.js';
export { readmeSnippet } from './readme.js';
export { controlPlaneEnv, controlPlaneEnvFile } from './control-plane.js';
export type { ControlPlaneEnv } from './control-plane.js';
export { ensureNode } from './test-node.js';
export type { NodeSetupClient } from './test-node.js';
export { fc, fuzz, fuzzRuns, hostileBytes, hostileText, mutated, nestedText, yamlAliasBomb } from './fuzz.js';
export type { FuzzOptions } from './fuzz.js';
