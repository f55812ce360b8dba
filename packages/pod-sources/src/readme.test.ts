// The README's snippets, run as tests so they cannot rot.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createApiSource, createFileSource, createPodConfig, formatSourceError } from './index.js';
import type { PodUpdate } from './index.js';
import { FakePodInformer, FakePodSource } from './testing/index.js';

describe('README', () => {
  it('usage: a file source through the mux', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readme-'));
    try {
      await writeFile(
        join(dir, 'web.yaml'),
        'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: "nginx:1.25"}]}\n',
      );
      await writeFile(
        join(dir, 'bad.yaml'),
        'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: Foo, image: nginx}]}\n',
      );
      const logger = new RecordingLogger();
      const controller = new AbortController();
      const config = createPodConfig({
        sources: [createFileSource({ path: dir, nodeName: 'node-a', logger })],
        logger,
        signal: controller.signal,
      });
      const warnings: string[] = [];
      config.onSourceError((e) => warnings.push(formatSourceError(e)));
      const received: PodUpdate[] = [];
      for await (const update of config.updates) {
        received.push(update);
        if (config.seenAllSources()) controller.abort();
      }
      expect(received.map((u) => [u.op, u.source, u.pods.map((p) => p.metadata.name)])).toEqual([['ADD', 'file', ['web-node-a']]]);
      expect(warnings).toEqual([
        `${join(dir, 'bad.yaml')}: spec.containers[0].name: Invalid value "Foo": must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('testing: FakePodSource', async () => {
    const api = new FakePodSource('api');
    const config = createPodConfig({ sources: [api] });
    api.set([newPod({ name: 'web' })]);
    const first = await config.updates[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject({ op: 'ADD', source: 'api', pods: [{ metadata: { name: 'web' } }] });
    await config.close();
  });

  it('API source: mirror pods apart from the pods to run', async () => {
    const podInformer = new FakePodInformer();
    const web = newPod({ name: 'web', uid: 'uid-web', spec: { nodeName: 'kts-node' } });
    const mirror = newPod({
      name: 'etcd-kts-node',
      uid: 'uid-mirror',
      annotations: { 'kubernetes.io/config.mirror': 'h' },
      spec: { nodeName: 'kts-node' },
    });
    podInformer.add(web);
    podInformer.add(mirror);
    podInformer.sync();
    const logger = new RecordingLogger();
    const api = createApiSource({ informer: podInformer, nodeName: 'kts-node', logger });
    api.onMirrorPods((mirrorPods) => logger.info('Mirror pods', { count: mirrorPods.length })); // the pod manager's mapping
    const config = createPodConfig({ sources: [api], logger });
    const first = await config.updates[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject({ op: 'ADD', source: 'api', pods: [{ metadata: { name: 'web' } }] });
    expect(logger.records.find((r) => r.msg === 'Mirror pods')?.fields).toMatchObject({ count: 1 });
    await config.close();
  });
});
