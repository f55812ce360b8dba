import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import { FakeVolumeManager } from '@kubelet-ts/volume-manager/testing';
import { createStatusManager } from '@kubelet-ts/status-manager';
import { createPodLifecycle } from './index.js';
import { makePod } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  let rootDir: string;
  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'pod-lifecycle-readme-'));
  });
  afterEach(async () => {
    await rm(rootDir, { recursive: true, force: true });
  });

  it('runs the usage snippet, which is the README block verbatim', async () => {
    const runtime = new FakeContainerRuntime();
    const getNodeIPs = (): string[] => ['192.168.1.10'];
    const volumes = new FakeVolumeManager(rootDir);
    const pod = makePod({ name: 'web' });

    // README:begin
    const statusManager = createStatusManager(); // where pod statuses are kept (and sent, in API mode)
    const lifecycle = createPodLifecycle({ runtime, nodeName: 'node-1', getNodeIPs, volumes, rootDir, statusManager });
    const controller = new AbortController();
    const running = lifecycle.run(controller.signal); // PLEG, sync ticker, housekeeping, container GC
    const started = new Promise<void>((resolve) => {
      statusManager.onStatusChange((_pod, podStatus) => podStatus.phase === 'Running' && resolve());
    });

    lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] }); // from the pod sources
    lifecycle.setSourcesReady(); // every source delivered its first full set: orphans may now be killed
    await started; // the first sync started the pod

    const status = lifecycle.getPodStatus(pod.metadata.uid); // phase, conditions, container states
    const pods = lifecycle.getPods(); // the desired pods with their live status: what GET /pods serves

    controller.abort(); // stops every loop; running pods are left alone
    await running;
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));

    expect(runtime.latestContainer(pod.metadata.uid, 'app')?.state).toBe('running');
    expect(status?.hostIP).toBe('192.168.1.10');
    expect(status?.containerStatuses?.map((c) => c.name)).toEqual(['app']);
    expect(pods.map((p) => p.metadata.uid)).toEqual([pod.metadata.uid]);
    expect(pods[0]?.status).toBe(status);
    expect((await stat(join(rootDir, 'pods', pod.metadata.uid))).isDirectory()).toBe(true);
    expect(volumes.calls).toContainEqual({ method: 'waitForAttachAndMount', podUID: pod.metadata.uid });
    // Stopping the loop leaves the pod running.
    expect(runtime.callsOf('killPod')).toHaveLength(0);
  });
});
