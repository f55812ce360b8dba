import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { createContainerManager } from './index.js';
import { createFakeCgroupTree } from './testing/index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim, on a fake cgroup v1 tree', async () => {
    const tree = await createFakeCgroupTree({ mode: 'v1', cpus: 4 });
    const machine = { fsRoot: tree.fsRoot, fs: tree.fs };
    const pod = newPod({
      uid: '1234',
      containers: [{ name: 'app', resources: { requests: { cpu: '250m' }, limits: { memory: '128Mi' } } }],
    });
    try {
      // README:begin
      const cm = createContainerManager({
        cgroupRoot: '/', // --cgroup-root
        cgroupDriver: 'cgroupfs',
        kubeReserved: { cpu: '100m', memory: '256Mi' },
        evictionHard: { 'memory.available': '100Mi' },
        enforceNodeAllocatable: ['pods'],
        podPidsLimit: 1024,
        ...machine, // tests only: a fake cgroup tree (fsRoot, fs); omit on a node
      });
      await cm.start(); // kubepods (node allocatable), kubepods/burstable, kubepods/besteffort

      const cgroupParent = cm.getPodCgroupParent(pod); // '/kubepods/burstable/pod1234': the sandbox's cgroup_parent
      await cm.podCgroups.ensureExists(pod); // before RunPodSandbox: cpu.shares 256, memory limit 128Mi, pids.max 1024
      const usage = await cm.podContainerManager.podStats(pod); // { cpuUsageNanoseconds, memoryUsageBytes, memoryWorkingSetBytes }
      await cm.podCgroups.destroy(pod.metadata.uid); // after the pod terminated: SIGKILL leftovers, rmdir everywhere
      // README:end

      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      expect(cgroupParent).toBe('/kubepods/burstable/pod1234');
      expect(usage.memoryUsageBytes).toBe(0);
      expect(await tree.exists('cpu', '/kubepods/burstable/pod1234')).toBe(false);
      expect(cm.getNodeAllocatable()?.allocatable.cpuMilli).toBe(3900);
    } finally {
      await tree.cleanup();
    }
  });
});
