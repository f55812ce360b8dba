import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import { FakeKubeClient } from '@kubelet-ts/kube-client/testing';
import { ObjectManagerError } from './errors.js';
import { createConfigMapManager, createSecretManager } from './object-managers.js';

const CMS = '/api/v1/namespaces/ns/configmaps';
const cmPath = (name: string): string => `${CMS}/${name}`;
const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
  ...extra,
});

const podUsing = (name: string, configMaps: string[], uid = `uid-${name}`): Pod =>
  newPod({
    name,
    namespace: 'ns',
    uid,
    containers: [{ name: 'app', envFrom: configMaps.map((n) => ({ configMapRef: { name: n } })) }],
  });

function setup() {
  const clock = new FakeClock();
  const client = new FakeKubeClient();
  const logger = new RecordingLogger();
  const manager = createConfigMapManager({ client, clock, logger, random: () => 0 });
  const watches = (name?: string) =>
    client.calls.filter((c) => c.method === 'WATCH' && (name === undefined || c.query?.fieldSelector === `metadata.name=${name}`)).length;
  return { clock, client, logger, manager, watches };
}

const errorOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('watch-based ConfigMap manager', () => {
  it('watches each named object once, by name, while any pod refers to it, and stops at the last reference', async () => {
    const { client, manager, watches } = setup();
    client.set(cmPath('a'), configMap('a', { k: 'v' }));
    manager.registerPod(podUsing('p1', ['a', 'b']));
    manager.registerPod(podUsing('p2', ['a']));
    await flushMicrotasks();
    expect(watches('a')).toBe(1);
    expect(watches('b')).toBe(1);
    expect(client.calls.find((c) => c.method === 'GET')).toMatchObject({ path: CMS, query: { fieldSelector: 'metadata.name=a' } });
    expect(client.openWatches(CMS)).toBe(2);
    expect(manager.objects().map((o) => `${o.name}:${o.referencedBy.join(',')}:${o.watching}`)).toEqual([
      'a:uid-p1,uid-p2:true',
      'b:uid-p1:true',
    ]);

    manager.unregisterPod(podUsing('p1', ['a', 'b']));
    await flushMicrotasks();
    expect(client.openWatches(CMS)).toBe(1); // b stopped, a still named by p2
    manager.unregisterPod(podUsing('p2', ['a']));
    await flushMicrotasks();
    expect(client.openWatches(CMS)).toBe(0);
    expect(manager.objects()).toEqual([]);
    expect(await errorOf(manager.get('ns', 'a'))).toMatchObject({ code: 'NOT_REGISTERED', message: 'object "ns"/"a" not registered' });
  });

  it('re-registering an updated pod adds the new references and releases the dropped ones', async () => {
    const { client, manager } = setup();
    manager.registerPod(podUsing('p', ['a', 'b']));
    manager.registerPod(podUsing('p', ['b', 'c']));
    await flushMicrotasks();
    expect(manager.objects().map((o) => o.name)).toEqual(['b', 'c']);
    expect(client.openWatches(CMS)).toBe(2);
    expect(manager.objects().find((o) => o.name === 'b')?.referencedBy).toEqual(['uid-p']);
  });

  it('serves the watched object, sees updates and deletion, and answers undefined for an absent one', async () => {
    const { client, manager } = setup();
    client.set(cmPath('a'), configMap('a', { k: 'v1' }));
    manager.registerPod(podUsing('p', ['a', 'missing']));
    await flushMicrotasks();
    expect((await manager.get('ns', 'a'))?.data).toEqual({ k: 'v1' });
    expect(await manager.get('ns', 'missing')).toBeUndefined();

    await client.update(cmPath('a'), configMap('a', { k: 'v2' }));
    await flushMicrotasks();
    expect((await manager.get('ns', 'a'))?.data).toEqual({ k: 'v2' });
    await client.create(CMS, configMap('missing', { now: 'here' }));
    await flushMicrotasks();
    expect((await manager.get('ns', 'missing'))?.data).toEqual({ now: 'here' });
    await client.delete(cmPath('a'));
    await flushMicrotasks();
    expect(await manager.get('ns', 'a')).toBeUndefined();
  });

  it('waits for the first list, polling up to 1 s, then fails with the upstream message', async () => {
    const { client, clock, manager } = setup();
    client.set(cmPath('a'), configMap('a', { k: 'v' }));
    // The first list fails: the informer backs off (800 ms) and lists again.
    client.fail({ method: 'GET', path: CMS, error: new Error('connection refused') });
    manager.registerPod(podUsing('p', ['a']));
    const got = manager.get('ns', 'a');
    await clock.advance(900);
    expect((await got)?.data).toEqual({ k: 'v' });

    client.fail({ method: 'GET', path: /configmaps/, error: new Error('connection refused'), times: 100 });
    manager.registerPod(podUsing('q', ['b']));
    const timedOut = errorOf(manager.get('ns', 'b'));
    await clock.advance(990);
    let settled = false;
    void timedOut.then(() => (settled = true));
    await flushMicrotasks();
    expect(settled).toBe(false);
    await clock.advance(20);
    const err = await timedOut;
    expect(ObjectManagerError.is(err, 'SYNC_TIMEOUT')).toBe(true);
    expect((err as Error).message).toBe('failed to sync configmap cache: timed out waiting for the condition');
  });

  it('stops watching an object seen immutable and keeps serving its last copy', async () => {
    const { client, manager, logger } = setup();
    client.set(cmPath('a'), configMap('a', { k: 'v' }, { immutable: true }));
    manager.registerPod(podUsing('p', ['a']));
    await flushMicrotasks();
    expect((await manager.get('ns', 'a'))?.data).toEqual({ k: 'v' });
    await flushMicrotasks();
    expect(client.openWatches(CMS)).toBe(0);
    expect(manager.objects()[0]).toMatchObject({ watching: false, immutable: true });
    expect(logger.find('Stopped watching for changes - object is immutable')).toHaveLength(1);
    const calls = client.calls.length;
    expect((await manager.get('ns', 'a'))?.data).toEqual({ k: 'v' });
    expect(client.calls.length).toBe(calls); // no new list or watch
  });

  it('stops the watch of an object not read for 5 × resyncInterval, and restarts it on the next get', async () => {
    const { client, clock, manager } = setup();
    client.set(cmPath('a'), configMap('a', { k: 'v1' }));
    manager.registerPod(podUsing('p', ['a']));
    await flushMicrotasks();
    await manager.get('ns', 'a');
    await clock.advance(5 * 60_000);
    expect(client.openWatches(CMS)).toBe(1); // exactly 5 min idle: not yet
    await clock.advance(60_000);
    expect(client.openWatches(CMS)).toBe(0);
    expect(manager.objects()[0]).toMatchObject({ watching: false, referencedBy: ['uid-p'] });

    client.set(cmPath('a'), configMap('a', { k: 'v2' }));
    const got = manager.get('ns', 'a');
    await clock.advance(10);
    expect((await got)?.data).toEqual({ k: 'v2' }); // re-listed, not the stale copy
    expect(client.openWatches(CMS)).toBe(1);
  });

  it('rejects an object that does not validate, naming namespace/name, field and reason', async () => {
    const { client, manager } = setup();
    client.set(cmPath('bad'), configMap('bad', {}, { binaryData: { blob: 'not base64!' } }));
    manager.registerPod(podUsing('p', ['bad']));
    await flushMicrotasks();
    const err = await errorOf(manager.get('ns', 'bad'));
    expect(ObjectManagerError.is(err, 'INVALID_OBJECT')).toBe(true);
    expect((err as Error).message).toBe('invalid configmap ns/bad: binaryData.blob: must be base64');
  });

  it('stop ends every watch and the idle sweep; later registrations start none', async () => {
    const { client, clock, manager } = setup();
    manager.registerPod(podUsing('p', ['a']));
    await flushMicrotasks();
    manager.stop();
    await flushMicrotasks();
    expect(client.openWatches(CMS)).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    manager.registerPod(podUsing('q', ['b']));
    await flushMicrotasks();
    expect(client.calls.filter((c) => c.query?.fieldSelector === 'metadata.name=b')).toEqual([]);
  });
});

describe('watch-based Secret manager', () => {
  it('watches image pull secrets and volume secrets under /secrets, with upstream messages', async () => {
    const clock = new FakeClock();
    const client = new FakeKubeClient();
    const manager = createSecretManager({ client, clock, random: () => 0 });
    client.set('/api/v1/namespaces/ns/secrets/pull', {
      metadata: { name: 'pull', namespace: 'ns' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') },
    });
    const pod = newPod({
      name: 'p',
      namespace: 'ns',
      spec: { imagePullSecrets: [{ name: 'pull' }], volumes: [{ name: 'v', secret: { secretName: 'gone' } }] },
    });
    manager.registerPod(pod);
    await flushMicrotasks();
    expect((await manager.get('ns', 'pull'))?.type).toBe('kubernetes.io/dockerconfigjson');
    expect(await manager.get('ns', 'gone')).toBeUndefined();
    expect(client.openWatches('/api/v1/namespaces/ns/secrets')).toBe(2);
    client.fail({ method: 'GET', path: /secrets/, error: new Error('down'), times: 100 });
    manager.registerPod(newPod({ name: 'q', namespace: 'ns', spec: { imagePullSecrets: [{ name: 'other' }] } }));
    const err = errorOf(manager.get('ns', 'other'));
    await clock.advance(1_000);
    expect(await err).toMatchObject({ message: 'failed to sync secret cache: timed out waiting for the condition' });
  });
});
