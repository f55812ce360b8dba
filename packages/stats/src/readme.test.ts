import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { createSummaryProvider } from './index.js';
import { newFakeNodeHost } from './testing/index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim, on a fake node and a fake runtime', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const cri = createFakeCriClient({ clock, image: { imageFsMountpoint: '/var/lib/kubelet' } });
    const pod = newPod({ name: 'web', uid: 'uid-web' });
    const kubelet = { getPods: () => [pod] };
    const cm = {
      podContainerManager: {
        podStats: async (_pod: unknown) => ({ cpuUsageNanoseconds: 1e9, memoryUsageBytes: 2e6, memoryWorkingSetBytes: 1e6 }),
      },
    };
    await cri.runtime.runPodSandbox({ config: { metadata: { name: 'web', namespace: 'default', uid: 'uid-web', attempt: 0 } } });
    const machine = { host: newFakeNodeHost({ rootDir: '/var/lib/kubelet' }), clock }; // tests only

    // README:begin
    const stats = createSummaryProvider({
      nodeName: 'node-1',
      rootDir: '/var/lib/kubelet', // nodefs = statfs of this directory
      podLogsDir: '/var/log/pods',
      runtimeService: cri.runtime, // ListPodSandbox, ListContainers, ListContainerStats, PodSandboxStatus
      imageService: cri.image, // ImageFsInfo
      getPods: () => kubelet.getPods(),
      podCgroupStats: (pod) => cm.podContainerManager.podStats(pod), // @kubelet-ts/cgroup-manager
      ...machine, // tests only: a fake /proc, /sys/fs/cgroup and statfs (host) and clock; omit on a node
    });

    const summary = await stats.get(); // cached: figures at most 10 s old
    const fresh = await stats.get({ updateStats: true }); // what eviction asks for
    const available = fresh.node.memory?.availableBytes; // MemTotal − (root usage − inactive_file): memory.available
    const web = summary.pods.find((p) => p.podRef.name === 'web'); // cpu, memory, containers, ephemeral-storage…
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(available).toBe(6 * 1024 ** 3);
    expect(web?.memory?.workingSetBytes).toBe(1e6);
    expect(web?.['ephemeral-storage']?.capacityBytes).toBe(100 * 1024 ** 3);
  });
});
