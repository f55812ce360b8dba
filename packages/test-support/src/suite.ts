// The jest hooks every integration suite on the shared runtime repeats: one client for the suite,
// and per test a teardown list, the pods it ran and a temporary directory, all removed after it.
import fs from 'node:fs';
import type { PodRemovalRuntime, TestPodRef } from './pods.js';
import { removeTestPod, tempDir } from './pods.js';
import { Cleanup } from './runtime.js';

/** What a suite's client must offer: structurally a cri-client CriClient. */
export interface RuntimeSuiteClient {
  runtime: PodRemovalRuntime;
  close(): void;
}

export interface RuntimeSuiteOptions<C extends RuntimeSuiteClient> {
  /** Makes the suite's client, before its first test; it is closed after the last. */
  connect: () => C;
  /** With a prefix, each test gets a fresh temporary directory (`root`). */
  tempPrefix?: string;
}

/** The current test's resources; read them inside tests and hooks, not at the top of a file. */
export interface RuntimeSuite<C extends RuntimeSuiteClient> {
  readonly client: C;
  /** The current test's teardown steps: run after it in reverse order, before its pods are removed. */
  readonly cleanup: Cleanup;
  /** The current test's temporary directory, removed last (needs `tempPrefix`). */
  readonly root: string;
  /** Registers a pod the current test runs: removed after the cleanup steps, through CRI, with its logs and cgroups. */
  track<P extends TestPodRef>(pod: P): P;
}

interface PerTest {
  cleanup: Cleanup;
  pods: TestPodRef[];
  root: string | undefined;
}

/**
 * Registers the suite's jest hooks (call it at the top of a test file). After each test, in order:
 * the cleanup steps (stop what uses the pods), the tracked pods, then the temporary directory; each
 * phase runs even when the one before it failed.
 */
export function useRuntimeSuite<C extends RuntimeSuiteClient>(options: RuntimeSuiteOptions<C>): RuntimeSuite<C> {
  let client: C | undefined;
  let current: PerTest | undefined;
  const now = (): PerTest => {
    if (current === undefined) throw new Error('useRuntimeSuite: read the suite inside a test or a hook');
    return current;
  };
  beforeAll(() => {
    client = options.connect();
  });
  afterAll(() => {
    client?.close();
  });
  beforeEach(() => {
    current = { cleanup: new Cleanup(), pods: [], root: options.tempPrefix !== undefined ? tempDir(options.tempPrefix) : undefined };
  });
  afterEach(async () => {
    const test = now();
    try {
      await test.cleanup.run();
    } finally {
      try {
        for (const pod of test.pods) if (client !== undefined) await removeTestPod(client.runtime, pod);
      } finally {
        if (test.root !== undefined) fs.rmSync(test.root, { recursive: true, force: true });
        current = undefined;
      }
    }
  });
  return {
    get client(): C {
      if (client === undefined) throw new Error('useRuntimeSuite: the client is connected before the first test');
      return client;
    },
    get cleanup() {
      return now().cleanup;
    },
    get root() {
      const { root } = now();
      if (root === undefined) throw new Error('useRuntimeSuite: pass tempPrefix for a temporary directory');
      return root;
    },
    track(pod) {
      now().pods.push(pod);
      return pod;
    },
  };
}
