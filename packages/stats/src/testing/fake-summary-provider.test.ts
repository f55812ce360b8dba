import { FakeSummaryProvider, newPodStats, newSummary } from './index.js';

describe('FakeSummaryProvider', () => {
  it('returns the summary it was given, then the one set, and records each call', async () => {
    const fake = new FakeSummaryProvider(newSummary({ memory: { capacityBytes: 1000, workingSetBytes: 400 } }));
    expect((await fake.get()).node.memory?.availableBytes).toBe(600);
    fake.set(newSummary({ pods: [newPodStats({ name: 'a' })] }));
    const second = await fake.get({ updateStats: true });
    expect(second.pods.map((p) => p.podRef.name)).toEqual(['a']);
    expect(fake.calls).toEqual([{ updateStats: false }, { updateStats: true }]);
  });

  it('returns copies, so a caller cannot change what the next call sees', async () => {
    const fake = new FakeSummaryProvider();
    const first = await fake.get();
    first.node.nodeName = 'changed';
    expect((await fake.get()).node.nodeName).toBe('node');
  });

  it('fails the next call with an injected error, then recovers', async () => {
    const fake = new FakeSummaryProvider();
    fake.failNext(new Error('boom'));
    await expect(fake.get()).rejects.toThrow('boom');
    await expect(fake.get()).resolves.toBeDefined();
  });
});

describe('newPodStats', () => {
  it('builds references and ephemeral storage from the options', () => {
    const stats = newPodStats({ name: 'web', namespace: 'ns', ephemeralStorageUsedBytes: 42, volumes: [{ name: 'cache', usedBytes: 7 }] });
    expect(stats.podRef).toEqual({ name: 'web', namespace: 'ns', uid: 'uid-web' });
    expect(stats['ephemeral-storage']?.usedBytes).toBe(42);
    expect(stats.volume?.[0]).toMatchObject({ name: 'cache', usedBytes: 7 });
  });
});
