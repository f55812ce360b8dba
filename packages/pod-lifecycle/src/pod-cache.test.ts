import { createPodStatusCache, emptyRuntimePodStatus } from './pod-cache.js';
import { PodLifecycleError } from './errors.js';

describe('pod status cache', () => {
  it('answers at once with an entry newer than the minimum time', async () => {
    const cache = createPodStatusCache();
    cache.set('a', { ...emptyRuntimePodStatus('a'), name: 'web' }, undefined, 100);
    await expect(cache.getNewerThan('a', 99)).resolves.toMatchObject({ uid: 'a', name: 'web' });
  });

  it('waits until the pod entry or the whole cache is strictly newer', async () => {
    const cache = createPodStatusCache();
    cache.set('a', emptyRuntimePodStatus('a'), undefined, 100);
    let got: string | undefined;
    const waiting = cache.getNewerThan('a', 100).then((s) => (got = s.name));
    cache.updateTime(100);
    await Promise.resolve();
    expect(got).toBeUndefined();
    cache.updateTime(101);
    await waiting;
    expect(got).toBe('');
  });

  it('wakes a waiter with a newer entry for its pod only', async () => {
    const cache = createPodStatusCache();
    let a: string | undefined;
    let b: string | undefined;
    void cache.getNewerThan('a', 10).then((s) => (a = s.name));
    void cache.getNewerThan('b', 10).then((s) => (b = s.name));
    cache.set('a', { ...emptyRuntimePodStatus('a'), name: 'pod-a' }, undefined, 11);
    await new Promise((r) => setImmediate(r));
    expect(a).toBe('pod-a');
    expect(b).toBeUndefined();
  });

  it('rejects with the stored read error, and on abort', async () => {
    const cache = createPodStatusCache();
    cache.set('a', undefined, new Error('runtime down'), 5);
    await expect(cache.getNewerThan('a', 1)).rejects.toThrow('runtime down');
    const controller = new AbortController();
    const waiting = cache.getNewerThan('b', 1, controller.signal);
    controller.abort(new Error('stop'));
    const err: unknown = await waiting.catch((e: unknown) => e);
    expect(PodLifecycleError.is(err, 'ABORTED')).toBe(true);
  });
});
