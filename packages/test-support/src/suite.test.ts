import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PodRemovalRuntime } from './pods.js';
import { testPod } from './pods.js';
import { useRuntimeSuite } from './suite.js';

// removeTestPod reads the test environment's directories: empty temporary ones here.
const logsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-test-logs-'));
process.env['KUBELET_TS_POD_LOGS_DIR'] = logsDir;
process.env['KUBELET_TS_CGROUP_ROOT'] = '/kubelet-ts-suite-test-none';

const events: string[] = [];
const runtime: PodRemovalRuntime = {
  listContainers: async (request) => {
    events.push(`list containers of ${request.filter.labelSelector['io.kubernetes.pod.uid']?.slice(0, 4) ?? ''}`);
    return { containers: [] };
  },
  removeContainer: async () => undefined,
  listPodSandbox: async () => ({ items: [] }),
  stopPodSandbox: async () => undefined,
  removePodSandbox: async () => undefined,
};
const suite = useRuntimeSuite({
  connect: () => {
    events.push('connect');
    return { runtime, close: () => events.push('close') };
  },
  tempPrefix: 'suite-test-',
});

describe('useRuntimeSuite', () => {
  let firstRoot = '';
  let uid = '';

  it('connects before the first test and gives each test a temporary directory', () => {
    expect(events).toEqual(['connect']);
    expect(suite.client.runtime).toBe(runtime);
    firstRoot = suite.root;
    expect(fs.statSync(firstRoot).isDirectory()).toBe(true);
    const pod = suite.track(testPod('web', { suite: 'test-support', terminationGracePeriodSeconds: 2 }, {}));
    uid = pod.metadata.uid;
    fs.mkdirSync(path.join(logsDir, `kts-test_${pod.metadata.name}_${uid}`));
    suite.cleanup.add(() => events.push('first step'));
    suite.cleanup.add(() => events.push('last step'));
  });

  it('after a test runs its steps in reverse, then removes its pods with their logs, then its directory', () => {
    expect(events).toEqual(['connect', 'last step', 'first step', `list containers of ${uid.slice(0, 4)}`]);
    expect(fs.readdirSync(logsDir)).toEqual([]);
    expect(fs.existsSync(firstRoot)).toBe(false);
    expect(suite.root).not.toBe(firstRoot);
  });

  it('makes a unique pod in the test namespace, labelled with its suite, with no containers unless given', () => {
    const a = testPod('web', { suite: 'test-support', terminationGracePeriodSeconds: 2 }, { restartPolicy: 'Never' });
    const b = testPod('web', { suite: 'test-support', terminationGracePeriodSeconds: 2 }, { containers: [{ name: 'c' }] });
    expect(a).toEqual({
      metadata: {
        name: `web-${a.metadata.uid.slice(0, 8)}`,
        namespace: 'kts-test',
        uid: a.metadata.uid,
        labels: { 'kubelet-ts.test/suite': 'test-support' },
      },
      spec: { containers: [], terminationGracePeriodSeconds: 2, restartPolicy: 'Never' },
    });
    expect(b.metadata.uid).not.toBe(a.metadata.uid);
    expect(b.spec.containers).toEqual([{ name: 'c' }]);
  });
});

afterAll(() => {
  fs.rmSync(logsDir, { recursive: true, force: true });
});
