import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, flushMicrotasks, RecordingLogger } from '@kubelet-ts/common/testing';
import { createApiSource } from './api-source.js';
import { PodSourceError } from './errors.js';
import { createPodConfig } from './pod-config.js';
import type { PodConfig } from './pod-config.js';
import { FakePodInformer } from './testing/fake-pod-informer.js';
import type { PodUpdate, SourceError, SourceEvent } from './types.js';

const NODE = 'kts-node';

let rv = 100;
/** A pod as the API server would send it: bound to a node, with a resourceVersion. */
function apiPod(name: string, extra: { node?: string; annotations?: Record<string, string>; deletionTimestamp?: string } = {}): Pod {
  const pod = newPod({ name, namespace: 'ns1', uid: `uid-${name}`, spec: { nodeName: extra.node ?? NODE } });
  pod.metadata.resourceVersion = String(++rv);
  if (extra.annotations !== undefined) pod.metadata.annotations = extra.annotations;
  if (extra.deletionTimestamp !== undefined) {
    pod.metadata.deletionTimestamp = extra.deletionTimestamp;
    pod.metadata.deletionGracePeriodSeconds = 30;
  }
  return pod;
}

function bump(pod: Pod, change: (p: Pod) => void): Pod {
  const copy = structuredClone(pod);
  change(copy);
  copy.metadata.resourceVersion = String(++rv);
  return copy;
}

function runSource(source: ReturnType<typeof createApiSource>): { events: SourceEvent[]; stop: () => Promise<void> } {
  const events: SourceEvent[] = [];
  const controller = new AbortController();
  const done = source.run((e) => events.push(e), controller.signal);
  return {
    events,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

const names = (e: SourceEvent | undefined): string[] => (e !== undefined && e.kind === 'set' ? e.pods.map((p) => p.metadata.name) : []);

describe('createApiSource', () => {
  it('sends nothing before the informer synced, then one set for the whole initial list', async () => {
    const informer = new FakePodInformer();
    const source = createApiSource({ informer, nodeName: NODE });
    const run = runSource(source);
    informer.add(apiPod('a'));
    informer.add(apiPod('b'));
    await flushMicrotasks();
    expect(run.events).toEqual([]);
    informer.sync();
    await flushMicrotasks();
    expect(run.events.map((e) => e.kind)).toEqual(['set']);
    expect(names(run.events[0]).sort()).toEqual(['a', 'b']);
    await run.stop();
    expect(informer.handlerCount).toBe(0);
  });

  it('sends the full set after every change, coalescing the events of one tick', async () => {
    const informer = new FakePodInformer();
    informer.add(apiPod('a'));
    informer.sync();
    const run = runSource(createApiSource({ informer, nodeName: NODE }));
    await flushMicrotasks();
    informer.add(apiPod('b'));
    informer.add(apiPod('c'));
    await flushMicrotasks();
    informer.delete(apiPod('a'));
    await flushMicrotasks();
    expect(run.events.map((e) => names(e).sort().join(','))).toEqual(['a', 'a,b,c', 'b,c']);
    await run.stop();
  });

  it('through the mux: pods are tagged api + seen, a deletionTimestamp is a DELETE, a deleted pod a REMOVE', async () => {
    const informer = new FakePodInformer();
    const a = apiPod('a');
    informer.add(a);
    informer.sync();
    const clock = new FakeClock();
    const config: PodConfig = createPodConfig({ sources: [createApiSource({ informer, nodeName: NODE })], clock });
    const received: PodUpdate[] = [];
    const consumer = (async () => {
      for await (const u of config.updates) received.push(u);
    })();
    await flushMicrotasks();
    informer.update(bump(a, (p) => (p.metadata.deletionTimestamp = '2026-01-01T00:00:30Z')));
    await flushMicrotasks();
    informer.delete(a);
    await flushMicrotasks();
    await config.close();
    await consumer;
    expect(received.map((u) => `${u.op} ${u.source} ${u.pods.map((p) => p.metadata.name).join(',')}`)).toEqual([
      'ADD api a',
      'DELETE api a',
      'REMOVE api a',
    ]);
    const added = received[0]?.pods[0];
    expect(added?.metadata.annotations?.['kubernetes.io/config.source']).toBe('api');
    expect(added?.metadata.annotations?.['kubernetes.io/config.seen']).toBe('2026-01-01T00:00:00Z');
    expect(received[1]?.pods[0]?.metadata.deletionTimestamp).toBe('2026-01-01T00:00:30Z');
    expect(config.seenAllSources()).toBe(true);
  });

  it('never passes on a pod bound to another node, and reports it once per version', async () => {
    const informer = new FakePodInformer();
    const logger = new RecordingLogger();
    informer.add(apiPod('mine'));
    const stray = apiPod('stray', { node: 'other-node' });
    informer.add(stray);
    informer.sync();
    const run = runSource(createApiSource({ informer, nodeName: NODE, logger }));
    await flushMicrotasks();
    informer.add(apiPod('mine-2'));
    await flushMicrotasks();
    const errors = run.events.flatMap((e) => (e.kind === 'error' ? e.errors : []));
    expect(errors).toEqual<SourceError[]>([
      {
        source: 'api',
        file: 'pods/ns1/stray',
        path: 'spec.nodeName',
        reason: 'Forbidden: pod is bound to node "other-node", not to this node "kts-node"',
      },
    ]);
    expect(run.events.filter((e) => e.kind === 'set').map((e) => names(e).sort().join(','))).toEqual(['mine', 'mine,mine-2']);
    expect(logger.records.filter((r) => r.msg === 'Refused pod from the API server')).toHaveLength(1);
    await run.stop();
  });

  it('skips an invalid pod with a named error while the others keep flowing', async () => {
    const informer = new FakePodInformer();
    const bad = apiPod('bad');
    (bad.spec.containers[0] as { name: string }).name = 'Not_A_Label';
    informer.add(bad);
    informer.add({ metadata: { namespace: 'ns1', name: 'garbage', uid: 'uid-garbage' }, spec: { containers: 'nope' } });
    informer.add(apiPod('good'));
    informer.sync();
    const run = runSource(createApiSource({ informer, nodeName: NODE }));
    await flushMicrotasks();
    const errors = run.events.flatMap((e) => (e.kind === 'error' ? e.errors : []));
    expect(errors.map((e) => `${e.file} ${e.path}`)).toEqual(['pods/ns1/bad spec.containers[0].name', 'pods/ns1/garbage spec.containers']);
    expect(errors.every((e) => e.source === 'api' && e.reason.length > 0)).toBe(true);
    expect(names(run.events.find((e) => e.kind === 'set'))).toEqual(['good']);
    await run.stop();
  });

  it('keeps mirror pods out of the pods to run and hands them to the mirror pod listeners', async () => {
    const informer = new FakePodInformer();
    const mirror = apiPod('static-kts-node', {
      annotations: {
        'kubernetes.io/config.mirror': 'hash-1',
        'kubernetes.io/config.hash': 'hash-1',
        'kubernetes.io/config.source': 'file',
      },
    });
    informer.add(mirror);
    informer.add(apiPod('web'));
    const source = createApiSource({ informer, nodeName: NODE });
    const heard: string[][] = [];
    source.onMirrorPods((pods) => heard.push(pods.map((p) => p.metadata.name)));
    const run = runSource(source);
    informer.sync();
    await flushMicrotasks();
    expect(names(run.events[0])).toEqual(['web']);
    expect(heard).toEqual([['static-kts-node']]);
    expect(source.mirrorPods().map((p) => p.metadata.uid)).toEqual(['uid-static-kts-node']);
    // An unrelated change does not repeat the mirror set; a change of the mirror pod does.
    informer.add(apiPod('web-2'));
    await flushMicrotasks();
    expect(heard).toHaveLength(1);
    informer.update(bump(mirror, (p) => (p.metadata.labels = { x: 'y' })));
    await flushMicrotasks();
    informer.delete(mirror);
    await flushMicrotasks();
    expect(heard).toEqual([['static-kts-node'], ['static-kts-node'], []]);
    // A late subscriber hears the current set at once.
    const late: number[] = [];
    source.onMirrorPods((pods) => late.push(pods.length));
    expect(late).toEqual([0]);
    expect(run.events.filter((e) => e.kind === 'set').every((e) => !names(e).includes('static-kts-node'))).toBe(true);
    await run.stop();
  });

  it('validates an object version once', async () => {
    const informer = new FakePodInformer();
    const bad = apiPod('bad', { node: 'elsewhere' });
    informer.add(bad);
    informer.sync();
    const run = runSource(createApiSource({ informer, nodeName: NODE }));
    await flushMicrotasks();
    informer.add(apiPod('x'));
    await flushMicrotasks();
    informer.update(bump(bad, (p) => (p.metadata.labels = { v: '2' })));
    await flushMicrotasks();
    // Reported for the first version and again for the changed one, not for the unrelated change.
    expect(run.events.filter((e) => e.kind === 'error')).toHaveLength(2);
    await run.stop();
  });

  it('stops while waiting for the sync, and refuses to run twice at once or without a node name', async () => {
    const informer = new FakePodInformer();
    const source = createApiSource({ informer, nodeName: NODE });
    const run = runSource(source);
    await flushMicrotasks();
    await expect(source.run(() => undefined, new AbortController().signal)).rejects.toThrow('already running');
    await run.stop();
    expect(run.events).toEqual([]);
    expect(informer.handlerCount).toBe(0);
    expect(() => createApiSource({ informer, nodeName: '' })).toThrow(PodSourceError);
  });
});
