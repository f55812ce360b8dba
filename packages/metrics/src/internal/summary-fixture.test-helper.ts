import type { Summary } from '@kubelet-ts/stats';

/** A fixed summary: a node, one pod with two containers (one measured without CPU), one pod not measured yet. */
export function fixedSummary(): Summary {
  return {
    node: {
      nodeName: 'node-a',
      startTime: '2026-01-01T00:00:00Z',
      cpu: { time: '2026-01-02T03:04:05Z', usageCoreNanoSeconds: 123_500_000_000 },
      memory: { time: '2026-01-02T03:04:06Z', workingSetBytes: 2_000_000_000, usageBytes: 3_000_000_000, rssBytes: 1_000_000_000 },
      network: { time: '2026-01-02T03:04:05Z', name: 'eth0', rxBytes: 10, txBytes: 20, rxErrors: 0, txErrors: 1 },
    },
    pods: [
      {
        podRef: { name: 'web', namespace: 'default', uid: 'uid-web' },
        startTime: '2026-01-02T00:00:00Z',
        cpu: { time: '2026-01-02T03:04:05Z', usageCoreNanoSeconds: 1_250_000_000 },
        memory: { time: '2026-01-02T03:04:05Z', workingSetBytes: 4096, usageBytes: 8192 },
        network: {
          time: '2026-01-02T03:04:05Z',
          name: 'eth0',
          rxBytes: 100,
          txBytes: 200,
          interfaces: [{ name: 'eth0', rxBytes: 100, txBytes: 200 }],
        },
        containers: [
          {
            name: 'nginx',
            startTime: '2026-01-02T00:00:01Z',
            cpu: { time: '2026-01-02T03:04:05Z', usageCoreNanoSeconds: 1_000_000_000 },
            memory: { time: '2026-01-02T03:04:05Z', workingSetBytes: 3072, usageBytes: 6144, rssBytes: 2048 },
            rootfs: { time: '2026-01-02T03:04:05Z', usedBytes: 65536 },
          },
          { name: 'sidecar', startTime: '2026-01-02T00:00:02.500Z', memory: { time: '2026-01-02T03:04:05Z', workingSetBytes: 1024 } },
        ],
      },
      { podRef: { name: 'new', namespace: 'kube-system', uid: 'uid-new' }, startTime: '2026-01-02T03:04:00Z', containers: [] },
    ],
  };
}
