// The README's snippets, run as tests so they cannot rot (the real CRI client is swapped for the fakes).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createBackoff } from '@kubelet-ts/common';
import { FakeClock, RecordingEventRecorder } from '@kubelet-ts/common/testing';
import { FakeImageService, FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import type { RuntimeHelper } from '@kubelet-ts/container-runtime';
import { createRuntimeManager } from './index.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'uid-readme' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25', command: ['sh', '-c', 'exit 1'] }] },
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'rm-readme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('README', () => {
  it('usage: sync, crash-loop back-off, kill and collect', async () => {
    const clock = new FakeClock();
    const images = new FakeImageService({ clock });
    const cri = { runtime: new FakeRuntimeService({ clock, imageService: images }), image: images };
    const helper: RuntimeHelper = {
      async generateRunContainerOptions(p, container) {
        return { env: (container.env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' })), mounts: [], hostname: p.metadata.name };
      },
      getPodCgroupParent: (p) => `/kubepods/besteffort/pod${p.metadata.uid}`,
      getPodDNS: async () => ({ servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] }),
      getPodDir: (uid) => path.join(tmp, 'pods', uid),
    };
    const recorder = new RecordingEventRecorder();
    const runtime = createRuntimeManager({
      runtimeService: cri.runtime,
      imageService: cri.image,
      helper,
      podLogsDir: path.join(tmp, 'logs'),
      clock,
      recorder,
    });
    const crashLoopBackoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
    const deleted = new Set<string>();

    const sync = async () =>
      runtime.syncPod(pod, await runtime.getPodStatus(pod.metadata.uid, pod.metadata.name, pod.metadata.namespace), crashLoopBackoff);
    expect((await sync()).error).toBeUndefined();
    // the container crashes twice in a row
    for (let i = 0; i < 2; i++) {
      const st = await runtime.getPodStatus('uid-readme', 'web', 'default');
      cri.runtime.exitContainer(st.containers[0]?.id ?? '', 1);
      if (i === 0) await sync();
    }
    await clock.advance(5_000);
    const result = await sync();
    expect(result.results.filter((r) => r.reason !== undefined).map((r) => [r.action, r.target, r.reason, r.message])).toEqual([
      ['StartContainer', 'app', 'CrashLoopBackOff', 'back-off 10s restarting failed container=app pod=web_default(uid-readme)'],
    ]);
    expect(recorder.find('BackOff').map((e) => [e.type, e.message, e.object.fieldPath])).toEqual([
      ['Warning', 'Back-off restarting failed container app in pod web_default(uid-readme)', 'spec.containers{app}'],
    ]);

    await clock.advance(10_000);
    await sync();
    const running = (await runtime.getPods(false)).find((p) => p.uid === pod.metadata.uid);
    expect(running).toBeDefined();
    if (running) await runtime.killPod(pod, running);
    deleted.add(pod.metadata.uid);
    await runtime.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, (uid) => deleted.has(uid));
    expect(await runtime.getPods(true)).toEqual([]);
  });
});
