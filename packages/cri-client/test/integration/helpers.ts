// Shared helpers of the cri-client integration tests (real containerd from scripts/test-runtime.sh).
import { Cleanup, runTestSandbox, runtimeEnv as env, testSandbox, useRuntimeSuite, waitFor } from '@kubelet-ts/test-support';
import type { TestSandbox } from '@kubelet-ts/test-support';
import { createCriClient, ignoreNotFound } from '../../src/index.js';
import type { CriClient } from '../../src/index.js';

export { Cleanup, env, runTestSandbox, useRuntimeSuite, waitFor };

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
}

/** A unique sandbox config of this suite (test-support's testSandbox with the suite's label and owner annotation). */
export function testPod(prefix: string, options: { hostNetwork?: boolean; labels?: Record<string, string> } = {}): TestSandbox {
  return testSandbox(prefix, { suite: 'cri-client', annotations: { 'kubelet-ts.test/owner': 'cri-client-integration' }, ...options });
}

export { ignoreNotFound };
