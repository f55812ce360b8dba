import { noopLogger } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import { z } from 'zod';
import { KubeClientError } from './errors.js';
import { createInformer } from './informer.js';
import { FakeKubeClient } from './testing/index.js';
import type { InformerOptions } from './informer.js';

const PodSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string(),
    resourceVersion: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.object({ nodeName: z.string() }),
});
type Pod = z.infer<typeof PodSchema>;

const pod = (name: string, nodeName = 'n1', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName },
  ...extra,
});

const PODS = '/api/v1/pods';
const path = (name: string): string => `/api/v1/namespaces/default/pods/${name}`;

function setup(options: Partial<InformerOptions<Pod>> = {}) {
  const clock = new FakeClock();
  const client = new FakeKubeClient();
  const logger = new RecordingLogger();
  const informer = createInformer<Pod>({
    client,
    path: PODS,
    fieldSelector: 'spec.nodeName=n1',
    schema: PodSchema,
    logger,
    clock,
    random: () => 0,
    ...options,
  });
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (p) => events.push(`add ${p.metadata.name}`),
    onUpdate: (o, p) => events.push(`update ${o.metadata.name}@${o.metadata.resourceVersion ?? ''}->${p.metadata.resourceVersion ?? ''}`),
    onDelete: (p) => events.push(`delete ${p.metadata.name}`),
  });
  const controller = new AbortController();
  return { clock, client, logger, informer, events, controller, start: () => informer.start(controller.signal) };
}

const watchCalls = (client: FakeKubeClient) => client.calls.filter((c) => c.method === 'WATCH');
const listCalls = (client: FakeKubeClient) => client.calls.filter((c) => c.method === 'GET');

describe('informer', () => {
  it('lists with resourceVersion=0 and limit=500, then watches with bookmarks, a 5–10 min timeout and the list RV', async () => {
    const { client, informer, events, start, controller } = setup();
    client.set(path('a'), pod('a'));
    client.set(path('other'), pod('other', 'n2'));
    start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual(['add a']);
    expect(informer.get('default/a')?.spec.nodeName).toBe('n1');
    expect(listCalls(client)[0]?.query).toEqual({
      fieldSelector: 'spec.nodeName=n1',
      labelSelector: undefined,
      limit: 500,
      resourceVersion: '0',
    });
    await flushMicrotasks();
    expect(watchCalls(client)[0]?.query).toMatchObject({
      allowWatchBookmarks: true,
      fieldSelector: 'spec.nodeName=n1',
      resourceVersion: expect.stringMatching(/^\d+$/),
      timeoutSeconds: 300,
    });
    controller.abort();
  });

  it('turns watch events into add, update and delete (a selector exit is a delete)', async () => {
    const { client, informer, events, start, controller } = setup();
    start();
    await informer.waitForSync();
    await flushMicrotasks();
    await client.create('/api/v1/namespaces/default/pods', pod('b'));
    await client.patch(path('b'), { metadata: { labels: { x: 'y' } } }, 'merge');
    await client.patch(path('b'), { spec: { nodeName: 'n2' } }, 'merge');
    await flushMicrotasks();
    expect(events).toEqual([expect.stringMatching(/^add b$/), expect.stringMatching(/^update b@\d+->\d+$/), 'delete b']);
    expect(informer.list()).toEqual([]);
    controller.abort();
  });

  it('skips objects that fail the schema, logs the field and reason, and keeps the others', async () => {
    const { client, informer, events, logger, start, controller } = setup();
    client.set(path('good'), pod('good'));
    client.set(path('bad'), { metadata: { name: 'bad', namespace: 'default', labels: { tier: 7 } }, spec: { nodeName: 'n1' } });
    start();
    await informer.waitForSync();
    expect(events).toEqual(['add good']);
    const warn = logger.records.find((r) => r.msg === 'Skipping an invalid object');
    expect(warn?.fields).toMatchObject({
      object: 'default/bad',
      field: 'metadata.labels[tier]',
      reason: expect.stringContaining('expected string'),
    });
    await flushMicrotasks();
    client.emit(PODS, { type: 'ADDED', object: { metadata: { name: 'w', namespace: 'default' }, spec: {} } });
    client.emit(PODS, { type: 'ADDED', object: pod('ok') });
    await flushMicrotasks();
    expect(events).toEqual(['add good', 'add ok']);
    controller.abort();
  });

  it("reads null as not set, as Go's decoding does (the API sends null for a zero time), in the list and in watch events", async () => {
    const { client, informer, events, start, controller } = setup();
    client.set(path('a'), pod('a', 'n1', { metadata: { name: 'a', namespace: 'default', labels: null } }));
    start();
    await informer.waitForSync();
    expect(events).toEqual(['add a']);
    expect(Object.keys(informer.get('default/a')?.metadata ?? {})).not.toContain('labels');
    await flushMicrotasks();
    client.emit(PODS, {
      type: 'ADDED',
      object: { metadata: { name: 'b', namespace: 'default', resourceVersion: null }, spec: { nodeName: 'n1' } },
    });
    await flushMicrotasks();
    expect(events).toEqual(['add a', 'add b']);
    // The same for a typed GET (decodeWith, shared by the REST client and this fake).
    const got = await client.get(path('a'), { schema: PodSchema });
    expect(got.metadata.name).toBe('a');
    expect(Object.keys(got.metadata)).not.toContain('labels');
    controller.abort();
  });

  it('re-watches from the last resourceVersion after a clean end, without relisting', async () => {
    const { client, informer, start, controller, clock } = setup();
    start();
    await informer.waitForSync();
    await flushMicrotasks();
    client.emit(PODS, { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '777' } } });
    await flushMicrotasks();
    await clock.advance(300_000);
    client.endWatches();
    await flushMicrotasks();
    expect(listCalls(client)).toHaveLength(1);
    expect(watchCalls(client).map((c) => c.query?.resourceVersion)).toEqual([expect.any(String), '777']);
    controller.abort();
  });

  it('retries every error after client-go back-off (800 ms doubling), resuming from the last resourceVersion', async () => {
    const { client, informer, start, controller, clock } = setup();
    start();
    await informer.waitForSync();
    await flushMicrotasks();
    const reset = new KubeClientError('TRANSPORT', 'read ECONNRESET');
    client.fail({ method: 'WATCH', error: reset, times: 2 });
    client.endWatches(undefined, reset);
    await flushMicrotasks();
    expect(watchCalls(client)).toHaveLength(1);
    await clock.advance(799);
    expect(watchCalls(client)).toHaveLength(1);
    await clock.advance(1); // 800 ms: second watch, scripted to fail
    expect(watchCalls(client)).toHaveLength(2);
    await clock.advance(1599);
    expect(watchCalls(client)).toHaveLength(2);
    await clock.advance(1); // 1600 ms: third watch, scripted to fail
    expect(watchCalls(client)).toHaveLength(3);
    await clock.advance(3200); // 3200 ms: the fourth succeeds
    expect(watchCalls(client)).toHaveLength(4);
    expect(client.openWatches()).toBe(1);
    expect(listCalls(client)).toHaveLength(1);
    expect(new Set(watchCalls(client).map((c) => c.query?.resourceVersion)).size).toBe(1);
    controller.abort();
  });

  it('resets the back-off after a healthy watch', async () => {
    const { client, informer, start, controller, clock } = setup();
    start();
    await informer.waitForSync();
    await flushMicrotasks();
    const reset = new KubeClientError('TRANSPORT', 'reset');
    client.fail({ method: 'WATCH', error: reset, times: 1 });
    client.endWatches(undefined, reset);
    await clock.advance(800 + 1600);
    expect(watchCalls(client)).toHaveLength(3);
    client.emit(PODS, { type: 'ADDED', object: pod('healthy') });
    await flushMicrotasks();
    client.endWatches(undefined, reset);
    // Without the reset the next delay would be 3200 ms.
    await clock.advance(799);
    expect(watchCalls(client)).toHaveLength(3);
    await clock.advance(1);
    expect(watchCalls(client)).toHaveLength(4);
    controller.abort();
  });

  it('is current after a list, not after a failed watch, and again once the resumed watch delivers an event', async () => {
    const { client, informer, start, controller, clock } = setup();
    expect(informer.isCurrent()).toBe(false);
    start();
    await informer.waitForSync();
    expect(informer.isCurrent()).toBe(true);
    await flushMicrotasks();
    const refused = new KubeClientError('TRANSPORT', 'connect ECONNREFUSED');
    client.fail({ method: 'WATCH', error: refused, times: 1 });
    client.endWatches(undefined, refused);
    await flushMicrotasks();
    expect(informer.isCurrent()).toBe(false);
    await clock.advance(800 + 1600); // the failed retry, then a watch that opens
    expect(client.openWatches()).toBe(1);
    // Open but quiet: whatever changed while it was down may not have arrived yet.
    expect(informer.isCurrent()).toBe(false);
    client.emit(PODS, { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '900' } } });
    await flushMicrotasks();
    expect(informer.isCurrent()).toBe(true);
    controller.abort();
  });

  it('relists on 410 Expired and emits deletes for objects that vanished meanwhile', async () => {
    const { client, informer, events, start, controller, clock } = setup();
    client.set(path('stays'), pod('stays'));
    client.set(path('goes'), pod('goes'));
    start();
    await informer.waitForSync();
    await flushMicrotasks();
    const listRv = watchCalls(client)[0]?.query?.resourceVersion;
    // Disconnected: the changes meanwhile are not seen.
    client.endWatches(undefined, new KubeClientError('TRANSPORT', 'reset'));
    await flushMicrotasks();
    await client.delete(path('goes'));
    client.set(path('new'), pod('new'));
    await client.patch(path('stays'), { metadata: { labels: { v: '2' } } }, 'merge');
    await clock.advance(800);
    client.emit(PODS, {
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired', message: 'too old resource version' },
    });
    await flushMicrotasks();
    await clock.advance(1600);
    const lists = listCalls(client);
    expect(lists).toHaveLength(2);
    expect(lists[1]?.query?.resourceVersion).toBe(listRv);
    expect(events.slice(2)).toEqual(['delete goes', 'add new', expect.stringMatching(/^update stays@/)]);
    expect(
      informer
        .list()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['new', 'stays']);
    controller.abort();
  });

  it('lists the newest state at once when the last list resourceVersion is gone too', async () => {
    const { client, informer, start, controller } = setup();
    client.fail({ method: 'GET', error: new KubeClientError('API_STATUS', 'expired', { statusCode: 410, reason: 'Expired' }) });
    start();
    await informer.waitForSync();
    expect(listCalls(client).map((c) => c.query?.resourceVersion)).toEqual(['0', '']);
    controller.abort();
  });

  it('follows continue tokens, without resourceVersion on later pages', async () => {
    const client = new FakeKubeClient();
    const pages = [
      { metadata: { resourceVersion: '10', continue: 'tok' }, items: [pod('p1')] },
      { metadata: { resourceVersion: '10' }, items: [pod('p2')] },
    ];
    const list = jest.fn((_path: string, _o?: unknown) => Promise.resolve(pages.shift() as unknown));
    const informer = createInformer<Pod>({
      client: { list: list as never, watch: (p, q, s) => client.watch(p, q, s) },
      path: PODS,
      schema: PodSchema,
      logger: noopLogger,
      clock: new FakeClock(),
      pageSize: 1,
    });
    const controller = new AbortController();
    informer.start(controller.signal);
    await informer.waitForSync();
    expect(list.mock.calls.map((c) => (c[1] as { query: unknown }).query)).toEqual([
      { fieldSelector: undefined, labelSelector: undefined, limit: 1, resourceVersion: '0' },
      { fieldSelector: undefined, labelSelector: undefined, limit: 1, continue: 'tok' },
    ]);
    expect(informer.list().map((p) => p.metadata.name)).toEqual(['p1', 'p2']);
    controller.abort();
  });

  it('replays stored objects to a late handler, survives a throwing handler, and resyncs', async () => {
    const { client, informer, start, controller, clock } = setup({ resyncMs: 60_000 });
    client.set(path('a'), pod('a'));
    start();
    await informer.waitForSync();
    const late: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    const off = informer.addEventHandler({
      onAdd: (p) => late.push(`add ${p.metadata.name}`),
      onUpdate: (o, n) => late.push(`resync ${String(o === n)}`),
    });
    expect(late).toEqual(['add a']);
    await clock.advance(60_000);
    expect(late).toEqual(['add a', 'resync true']);
    off();
    await clock.advance(60_000);
    expect(late).toHaveLength(2);
    controller.abort();
  });

  it('stops on abort: no more requests, waitForSync rejects', async () => {
    const { client, informer, start, controller, clock } = setup();
    client.fail({ method: 'GET', error: new KubeClientError('TRANSPORT', 'down'), times: 100 });
    start();
    const wait = informer.waitForSync(controller.signal);
    await flushMicrotasks();
    controller.abort(new Error('stopped'));
    await expect(wait).rejects.toThrow('stopped');
    const before = client.calls.length;
    await clock.advance(120_000);
    expect(client.calls.length).toBe(before);
  });
});
