import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, flushMicrotasks, RecordingLogger } from '@kubelet-ts/common/testing';
import { PodSourceError } from './errors.js';
import { createPodConfig } from './pod-config.js';
import type { PodConfig } from './pod-config.js';
import { FakePodSource } from './testing/fake-pod-source.js';
import type { PodUpdate, SourceError } from './types.js';

const pod = (name: string, extra: { uid?: string; image?: string; labels?: Record<string, string> } = {}): Pod =>
  newPod({
    name,
    uid: extra.uid ?? `uid-${name}`,
    containers: [{ name: 'app', image: extra.image ?? 'nginx:1.25' }],
    ...(extra.labels ? { labels: extra.labels } : {}),
  });

/** Starts a background consumer and returns what it received so far. */
function consume(config: PodConfig): { received: PodUpdate[]; summary: () => string[]; done: Promise<void> } {
  const received: PodUpdate[] = [];
  const done = (async () => {
    for await (const update of config.updates) received.push(update);
  })();
  return {
    received,
    done,
    summary: () => received.map((u) => `${u.op} ${u.source} [${u.pods.map((p) => p.metadata.name).join(',')}]`),
  };
}

describe('createPodConfig', () => {
  let config: PodConfig | undefined;
  afterEach(async () => {
    await config?.close();
    config = undefined;
  });

  it("keeps its own copies: a source's pods are never changed by the merge, nor what it stored by a later change to them", async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const c = consume(config);
    const a = pod('a');
    const b = pod('b');
    const delivered = structuredClone([a, b]);
    api.set([a, b]);
    await flushMicrotasks();
    // Unchanged pods in a later set (the API source sends its whole set on every change) are compared, not taken.
    const changedB: Pod = { ...pod('b'), status: { phase: 'Running' } };
    api.set([a, changedB]);
    await flushMicrotasks();
    expect([a, b]).toEqual(delivered);
    expect(changedB.metadata.annotations).toBeUndefined();
    a.spec.containers[0]!.image = 'changed:1';
    if (changedB.status !== undefined) changedB.status.phase = 'Failed';
    api.set([pod('a'), { ...pod('b'), status: { phase: 'Running' } }]);
    await flushMicrotasks();
    expect(c.summary()).toEqual(['ADD api [a,b]', 'RECONCILE api [b]']);
    const stored = config.mergedState();
    expect(stored.map((p) => `${p.metadata.name} ${p.spec.containers[0]?.image} ${p.status?.phase ?? '-'}`)).toEqual([
      'a nginx:1.25 -',
      'b nginx:1.25 Running',
    ]);
  });

  it('takes the object it merged last, sent again, as unchanged; a new object is compared', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const c = consume(config);
    const a = pod('a');
    api.set([a]);
    await flushMicrotasks();
    // A source must not change a pod it sent: the same object again is not looked into.
    a.metadata.labels = { changed: 'in-place' };
    api.set([a]);
    await flushMicrotasks();
    expect(c.summary()).toEqual(['ADD api [a]']);
    api.set([pod('a', { labels: { changed: 'as-a-new-object' } })]);
    await flushMicrotasks();
    expect(c.summary()).toEqual(['ADD api [a]', 'UPDATE api [a]']);
    expect(c.received[1]?.pods[0]?.metadata.labels).toEqual({ changed: 'as-a-new-object' });
  });

  it('tells every source which API object references the kubelet can serve (none by default)', async () => {
    const a = new FakePodSource('file');
    const b = new FakePodSource('http');
    config = createPodConfig({ sources: [a, b], clock: new FakeClock(), allowedObjectReferences: ['configMapVolumes', 'csiVolumes'] });
    await flushMicrotasks();
    expect(a.context).toEqual({ allowedObjectReferences: ['configMapVolumes', 'csiVolumes'] });
    expect(b.context).toEqual({ allowedObjectReferences: ['configMapVolumes', 'csiVolumes'] });
    await config.close();
    const c = new FakePodSource('file');
    config = createPodConfig({ sources: [c], clock: new FakeClock() });
    await flushMicrotasks();
    expect(c.context).toEqual({ allowedObjectReferences: [] });
  });

  it('shows every pod that is not static, as delivered, to observePod with the time (the pod startup latency tracker)', async () => {
    const clock = new FakeClock();
    const api = new FakePodSource('api');
    const file = new FakePodSource('file');
    const seen: string[] = [];
    config = createPodConfig({
      sources: [api, file],
      clock,
      observePod: (p, whenMs) => seen.push(`${p.metadata.name} ${p.status?.phase ?? '-'} ${whenMs - Date.UTC(2026, 0, 1)}`),
    });
    const out = consume(config);
    api.set([pod('a')]);
    file.set([pod('static')]);
    await clock.advance(1_000);
    // A status-only change (a RECONCILE) is seen too, as upstream's watch shows it.
    api.set([{ ...pod('a'), status: { phase: 'Running' } }]);
    await flushMicrotasks();
    expect(seen).toEqual(['a - 0', 'a Running 1000']);
    expect(out.summary()).toContain('RECONCILE api [a]');
  });

  it('turns snapshots into ADD, UPDATE, REMOVE and RECONCILE and drops identical snapshots', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);

    api.set([pod('a'), pod('b')]);
    api.set([pod('a'), pod('b')]);
    api.set([pod('a', { labels: { tier: 'web' } }), pod('b')]);
    const withStatus = pod('b');
    withStatus.status = { phase: 'Running' };
    api.set([pod('a', { labels: { tier: 'web' } }), withStatus]);
    api.set([pod('a', { labels: { tier: 'web' } })]);
    await flushMicrotasks();

    expect(out.summary()).toEqual(['ADD api [a,b]', 'UPDATE api [a]', 'RECONCILE api [b]', 'REMOVE api [b]']);
    expect(out.received[1]?.pods[0]?.metadata.labels).toEqual({ tier: 'web' });
    expect(out.received[2]?.pods[0]?.status?.phase).toBe('Running');
  });

  it('orders the updates of one snapshot like upstream: REMOVE, ADD, UPDATE, RECONCILE', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    api.set([pod('a'), pod('b'), pod('c')]);
    const c = pod('c');
    c.status = { phase: 'Running' };
    api.set([pod('b', { labels: { x: 'y' } }), c, pod('d')]);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD api [a,b,c]', 'REMOVE api [a]', 'ADD api [d]', 'UPDATE api [b]', 'RECONCILE api [c]']);
  });

  it('handles incremental add/update/delete/remove, with DELETE for graceful deletion', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    api.add([pod('a')]);
    api.update([pod('a', { image: 'nginx:1.26' })]);
    const deleting = pod('a', { image: 'nginx:1.26' });
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    deleting.metadata.deletionGracePeriodSeconds = 30;
    api.delete([deleting]);
    api.remove([pod('a')]);
    api.remove([pod('never-added')]);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD api [a]', 'UPDATE api [a]', 'DELETE api [a]', 'REMOVE api [a]']);
    expect(out.received[1]?.pods[0]?.spec.containers[0]?.image).toBe('nginx:1.26');
    expect(out.received[2]?.pods[0]?.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
  });

  it('treats an update of an unknown pod as an ADD, as upstream', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    api.update([pod('new')]);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD api [new]']);
    expect(config.seenAllSources()).toBe(false);
  });

  it('annotates the source and the first-seen time, keeping the first-seen time across updates', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 500));
    const file = new FakePodSource('file');
    config = createPodConfig({ sources: [file], clock });
    const out = consume(config);
    file.set([pod('a')]);
    await clock.advance(60_000);
    file.set([pod('a', { labels: { v: '2' } })]);
    await flushMicrotasks();
    expect(out.received[0]?.pods[0]?.metadata.annotations).toEqual({
      'kubernetes.io/config.source': 'file',
      'kubernetes.io/config.seen': '2026-01-01T12:00:00.5Z',
    });
    expect(out.received[1]?.op).toBe('UPDATE');
    expect(out.received[1]?.pods[0]?.metadata.annotations?.['kubernetes.io/config.seen']).toBe('2026-01-01T12:00:00.5Z');
  });

  it('treats a change of a non-local annotation as an UPDATE, but ignores local annotation differences', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    api.set([pod('a')]);
    const mirrorish = pod('a');
    mirrorish.metadata.annotations = { 'kubernetes.io/config.seen': 'other', 'kubernetes.io/config.source': 'elsewhere' };
    api.set([mirrorish]);
    const annotated = pod('a');
    annotated.metadata.annotations = { team: 'x' };
    api.set([annotated]);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD api [a]', 'UPDATE api [a]']);
    expect(out.received[1]?.pods[0]?.metadata.annotations?.team).toBe('x');
  });

  it('knows when every source sent its first snapshot, and sends an empty ADD for an empty first snapshot', async () => {
    const file = new FakePodSource('file');
    const http = new FakePodSource('http');
    config = createPodConfig({ sources: [file, http], clock: new FakeClock() });
    const out = consume(config);
    let resolved = false;
    void config.allSourcesSeen.then(() => (resolved = true));

    file.set([]);
    http.add([pod('x')]);
    await flushMicrotasks();
    expect(config.seenAllSources()).toBe(false);
    expect(resolved).toBe(false);

    http.set([pod('x')]);
    await flushMicrotasks();
    expect(config.seenAllSources()).toBe(true);
    expect(resolved).toBe(true);
    // The empty ADD for "file"; the http snapshot changed nothing but is the first one, so an empty ADD too.
    expect(out.summary()).toEqual(['ADD file []', 'ADD http [x]', 'ADD http []']);
  });

  it('keeps pods with the same full name from different sources apart (upstream does not dedupe across sources)', async () => {
    const file = new FakePodSource('file');
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [file, api], clock: new FakeClock() });
    const out = consume(config);
    file.set([pod('same', { uid: 'u1' })]);
    api.set([pod('same', { uid: 'u2' })]);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD file [same]', 'ADD api [same]']);
    expect(
      config
        .mergedState()
        .map((p) => `${p.metadata.uid}:${p.metadata.annotations?.['kubernetes.io/config.source']}`)
        .sort(),
    ).toEqual(['u1:file', 'u2:api']);
  });

  it('drops a second pod with the same full name within one source and reports it', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock(), logger: new RecordingLogger() });
    const errors: SourceError[] = [];
    config.onSourceError((e) => errors.push(e));
    const out = consume(config);
    api.set([pod('a', { uid: 'u1' }), pod('a', { uid: 'u2' })]);
    await flushMicrotasks();
    expect(out.received[0]?.pods.map((p) => p.metadata.uid)).toEqual(['u1']);
    expect(errors).toEqual([
      {
        source: 'api',
        file: 'a_default',
        path: 'metadata.name',
        reason: 'Duplicate value "a": another pod of this source has the same name',
      },
    ]);
  });

  it('forwards source errors to listeners until they unsubscribe', async () => {
    const file = new FakePodSource('file');
    config = createPodConfig({ sources: [file] });
    const errors: SourceError[] = [];
    const unsubscribe = config.onSourceError((e) => errors.push(e));
    file.error([{ file: '/m/a.yaml', path: 'spec.containers[0].name', reason: 'Invalid value "Foo"' }]);
    unsubscribe();
    file.error([{ file: '/m/b.yaml', reason: 'ignored' }]);
    expect(errors).toEqual([{ source: 'file', file: '/m/a.yaml', path: 'spec.containers[0].name', reason: 'Invalid value "Foo"' }]);
  });

  it('gives consumers copies: mutating an update does not change the stored state', async () => {
    const api = new FakePodSource('api');
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    api.set([pod('a')]);
    await flushMicrotasks();
    const first = out.received[0]?.pods[0];
    if (first) first.spec.containers[0]!.image = 'mutated';
    expect(config.mergedState()[0]?.spec.containers[0]?.image).toBe('nginx:1.25');
  });

  it('stops the sources and ends the update stream on close or abort', async () => {
    const a = new FakePodSource('a');
    const controller = new AbortController();
    config = createPodConfig({ sources: [a], signal: controller.signal });
    const out = consume(config);
    expect(a.running).toBe(true);
    controller.abort();
    await out.done;
    expect(a.stopped).toBe(true);
    a.set([pod('late')]);
    expect(out.received).toEqual([]);
  });

  it('rejects allSourcesSeen when closed before every source was seen', async () => {
    const a = new FakePodSource('a');
    config = createPodConfig({ sources: [a] });
    await config.close();
    await expect(config.allSourcesSeen).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('rejects two sources with the same name', () => {
    expect(() => createPodConfig({ sources: [new FakePodSource('file'), new FakePodSource('file')] })).toThrow(PodSourceError);
  });

  it('delivers events pushed to a fake source before it was started', async () => {
    const api = new FakePodSource('api');
    api.set([pod('early')]);
    config = createPodConfig({ sources: [api], clock: new FakeClock() });
    const out = consume(config);
    await flushMicrotasks();
    expect(out.summary()).toEqual(['ADD api [early]']);
    expect(api.runCalls).toBe(1);
  });
});
