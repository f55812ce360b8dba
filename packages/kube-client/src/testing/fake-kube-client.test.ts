import { isAlreadyExists, isConflict, isNotFound } from '@kubelet-ts/api';
import { KubeClientError } from '../errors.js';
import type { WatchEvent } from '../types.js';
import { FakeKubeClient } from './fake-kube-client.js';

const pod = (name: string, namespace: string, nodeName: string) => ({ metadata: { name, namespace }, spec: { nodeName } });

describe('FakeKubeClient', () => {
  it('creates, gets and lists by collection path with selectors, with API errors api classifies', async () => {
    const client = new FakeKubeClient();
    const created = (await client.create('/api/v1/namespaces/a/pods', pod('p', 'a', 'n1'))) as {
      metadata: { uid: string; resourceVersion: string };
    };
    expect(created.metadata.uid).toMatch(/-/);
    await client.create('/api/v1/namespaces/b/pods', pod('q', 'b', 'n2'));
    expect(isAlreadyExists(await client.create('/api/v1/namespaces/a/pods', pod('p', 'a', 'n1')).catch((e: unknown) => e))).toBe(true);
    expect(isNotFound(await client.get('/api/v1/namespaces/a/pods/zz').catch((e: unknown) => e))).toBe(true);
    const all = (await client.list('/api/v1/pods', { query: { fieldSelector: 'spec.nodeName=n2' } })) as {
      items: { metadata: { name: string } }[];
    };
    expect(all.items.map((i) => i.metadata.name)).toEqual(['q']);
    const inA = (await client.list('/api/v1/namespaces/a/pods')) as { items: unknown[] };
    expect(inA.items).toHaveLength(1);
    expect(client.calls.map((c) => c.method)).toEqual(['POST', 'POST', 'POST', 'GET', 'GET', 'GET']);
  });

  it('checks UID preconditions and resourceVersions, and refuses a JSON patch with an object body', async () => {
    const client = new FakeKubeClient();
    await client.create('/api/v1/namespaces/a/pods', pod('p', 'a', 'n1'));
    const path = '/api/v1/namespaces/a/pods/p';
    expect(
      isConflict(
        await client.patch(`${path}/status`, { metadata: { uid: 'other' }, status: { phase: 'Running' } }).catch((e: unknown) => e),
      ),
    ).toBe(true);
    expect(isConflict(await client.update(path, { metadata: { name: 'p', resourceVersion: '1' } }).catch((e: unknown) => e))).toBe(true);
    expect(await client.patch(path, { metadata: { labels: { a: 'b' } } }, 'json').catch((e: unknown) => e)).toMatchObject({
      statusCode: 400,
    });
    await client.patch(path, [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }], 'json');
    expect((client.object(path) as { metadata: { labels: unknown } }).metadata.labels).toEqual({ a: 'b' });
    const uid = (client.object(path) as { metadata: { uid: string } }).metadata.uid;
    expect(isConflict(await client.delete(path, { body: { preconditions: { uid: 'x' } } }).catch((e: unknown) => e))).toBe(true);
    await client.delete(path, { body: { preconditions: { uid } } });
    expect(client.object(path)).toBeUndefined();
  });

  it('feeds watches with writes (selector exits as DELETED), pushed events and scripted failures', async () => {
    const client = new FakeKubeClient();
    const controller = new AbortController();
    const events: string[] = [];
    const done = (async () => {
      for await (const e of client.watch('/api/v1/pods', { fieldSelector: 'spec.nodeName=n1' }, controller.signal) as AsyncIterable<
        WatchEvent<{ metadata: { name: string } }>
      >) {
        events.push(`${e.type} ${e.object.metadata.name ?? ''}`);
      }
    })();
    await Promise.resolve();
    await client.create('/api/v1/namespaces/a/pods', pod('p', 'a', 'n1'));
    await client.create('/api/v1/namespaces/a/pods', pod('other', 'a', 'n2'));
    await client.patch('/api/v1/namespaces/a/pods/p', { spec: { nodeName: 'n2' } }, 'merge');
    client.emit('/api/v1/pods', { type: 'BOOKMARK', object: { metadata: { resourceVersion: '99' } } });
    await new Promise((r) => setImmediate(r));
    client.closeAllConnections();
    await expect(done).rejects.toBeInstanceOf(KubeClientError);
    expect(events).toEqual(['ADDED p', 'DELETED p', 'BOOKMARK ']);
    client.fail({ method: 'GET', path: /nodes/, error: new Error('scripted') });
    await expect(client.get('/api/v1/nodes/n')).rejects.toThrow('scripted');
    await expect(client.get('/api/v1/nodes/n')).rejects.toMatchObject({ statusCode: 404 });
  });
});
