import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeSummaryProvider, newPodStats, newSummary } from '@kubelet-ts/stats/testing';
import { createEvictionManager } from './index.js';
import type { KillPodRequest } from './index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim, on fake stats', async () => {
    const Gi = 1024 ** 3;
    const pods = [newPod({ name: 'web', uid: 'uid-web' })];
    const killed: Array<{ name: string; request: KillPodRequest }> = [];
    const summaryProvider = new FakeSummaryProvider(
      newSummary({
        memory: { capacityBytes: 8 * Gi, workingSetBytes: 8 * Gi - 50 * 1024 ** 2 },
        pods: [newPodStats({ name: 'web', uid: 'uid-web' })],
      }),
    );
    const lifecycle = {
      getActivePods: () => pods,
      kill: async (pod: (typeof pods)[number], request: KillPodRequest) => {
        killed.push({ name: pod.metadata.name, request });
      },
      reclaimed: (_pod: unknown) => true,
    };
    const imageGC = { deleteUnusedImages: async () => ({ freedBytes: 0 }) };
    const containerGC = { deleteAllUnusedContainers: async () => undefined };
    const clock = new FakeClock();
    // README:begin
    const eviction = createEvictionManager({
      summaryProvider, // @kubelet-ts/stats: createSummaryProvider(...)
      getActivePods: () => lifecycle.getActivePods(),
      killPod: (pod, request) => lifecycle.kill(pod, request), // stop with request.gracePeriodSeconds, keep Failed/Evicted
      podCleanedUp: (pod) => lifecycle.reclaimed(pod),
      reclaimImages: () => imageGC.deleteUnusedImages(),
      deleteDeadContainers: () => containerGC.deleteAllUnusedContainers(),
      config: {
        evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
        evictionSoft: { 'memory.available': '500Mi' },
        evictionSoftGracePeriodMs: { 'memory.available': 90_000 },
        evictionPressureTransitionPeriodMs: 5 * 60_000,
      },
      clock,
    });
    const evicted = await eviction.synchronize(); // what run(signal) does every 10 s
    const conditions = eviction.nodeConditions(); // MemoryPressure True, KubeletHasInsufficientMemory
    const admission = eviction.admit(newPod({ name: 'late' })); // BestEffort under memory pressure: refused
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(evicted.map((p) => p.metadata.name)).toEqual(['web']);
    expect(killed[0]?.request.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 50Mi\. /);
    expect(conditions[0]).toMatchObject({ type: 'MemoryPressure', status: 'True', reason: 'KubeletHasInsufficientMemory' });
    expect(admission).toEqual({ admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  });
});
