import { cpuAndMemorySummary } from './index.js';
import { newPodStats, newSummary } from './testing/index.js';

describe('cpuAndMemorySummary', () => {
  it('keeps only the CPU and memory figures of the node, its system containers, the pods and their containers', () => {
    const full = newSummary({ pods: [newPodStats({ name: 'web', volumes: [{ name: 'v', usedBytes: 1 }] })] });
    full.node.systemContainers = [
      {
        name: 'pods',
        startTime: full.node.startTime,
        cpu: { time: full.node.startTime, usageCoreNanoSeconds: 1 },
        logs: { time: full.node.startTime },
      },
    ];
    const slim = cpuAndMemorySummary(full);
    expect(Object.keys(slim.node).sort()).toEqual(['cpu', 'memory', 'nodeName', 'startTime', 'systemContainers']);
    expect(slim.node.systemContainers?.[0]).toEqual({
      name: 'pods',
      startTime: full.node.startTime,
      cpu: { time: full.node.startTime, usageCoreNanoSeconds: 1 },
    });
    const pod = slim.pods[0];
    expect(Object.keys(pod ?? {}).sort()).toEqual(['containers', 'cpu', 'memory', 'podRef', 'startTime']);
    expect(Object.keys(pod?.containers[0] ?? {}).sort()).toEqual(['cpu', 'memory', 'name', 'startTime']);
    expect(pod?.memory).toEqual(full.pods[0]?.memory);
  });
});
