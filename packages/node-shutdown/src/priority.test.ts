import type { Pod } from '@kubelet-ts/api';
import { groupByPriority, migrateConfig, periodRequestedMs, podPriority } from './index.js';

const pod = (name: string, priority?: number, priorityClassName?: string): Pod => ({
  metadata: { name, namespace: 'default', uid: name },
  spec: {
    containers: [],
    ...(priority !== undefined ? { priority } : {}),
    ...(priorityClassName !== undefined ? { priorityClassName } : {}),
  },
});

describe('priority groups', () => {
  it('migrates the two settings as upstream migrateConfig', () => {
    expect(migrateConfig(20_000, 10_000)).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 10 },
      { priority: 2_000_000_000, shutdownGracePeriodSeconds: 10 },
    ]);
    expect(migrateConfig(30_500, 0)).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 30 },
      { priority: 2_000_000_000, shutdownGracePeriodSeconds: 0 },
    ]);
    expect(migrateConfig(0, 0)).toEqual([]);
    expect(migrateConfig(10_000, 20_000)).toEqual([]);
    expect(periodRequestedMs(migrateConfig(20_000, 10_000))).toBe(20_000);
  });

  it('puts each pod in the highest group at or below its priority (upstream groupByPriority)', () => {
    const groups = [
      { priority: 100, shutdownGracePeriodSeconds: 1 },
      { priority: 1000, shutdownGracePeriodSeconds: 2 },
      { priority: 2000, shutdownGracePeriodSeconds: 3 },
    ];
    const names = (g: ReturnType<typeof groupByPriority>): string[][] => g.map((x) => x.pods.map((p) => p.metadata.name));
    expect(
      names(groupByPriority(groups, [pod('below', 1), pod('at', 1000), pod('between', 1500), pod('above', 9000), pod('none')])),
    ).toEqual([['below', 'none'], ['at', 'between'], ['above']]);
  });

  it('reads spec.priority, else the built-in system classes (standalone pods have no priority admission)', () => {
    expect(podPriority(pod('a', 7))).toBe(7);
    expect(podPriority(pod('b', undefined, 'system-node-critical'))).toBe(2_000_001_000);
    expect(podPriority(pod('c', undefined, 'system-cluster-critical'))).toBe(2_000_000_000);
    expect(podPriority(pod('d', undefined, 'custom'))).toBe(0);
  });
});
