// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createBackoff } from '@kubelet-ts/common';
import { FakeClock } from '@kubelet-ts/common/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { KUBERNETES_POD_UID_LABEL, shouldContainerBeRestarted, toRunningPod } from './index.js';
import type { RuntimePodStatus } from './index.js';
import { FakeContainerRuntime } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', () => {
    // README:begin
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
      spec: {
        restartPolicy: 'Never',
        initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
        containers: [{ name: 'app', image: 'nginx' }],
      },
    };
    // What a runtime reported (getPodStatus): both containers exited.
    const status: RuntimePodStatus = {
      uid: 'uid-1',
      name: 'web',
      namespace: 'default',
      ips: ['10.88.0.7'],
      sandboxes: [{ id: 'sb-1', state: 'ready', createdAt: 1, attempt: 0, ip: '10.88.0.7', additionalIps: [], hostNetwork: false }],
      containers: [
        {
          id: 'c-2',
          name: 'proxy',
          state: 'exited',
          exitCode: 1,
          createdAt: 3,
          image: 'envoy',
          imageRef: 'sha256:e',
          hash: 'a1',
          restartCount: 0,
        },
        {
          id: 'c-1',
          name: 'app',
          state: 'exited',
          exitCode: 1,
          createdAt: 2,
          image: 'nginx',
          imageRef: 'sha256:n',
          hash: 'b2',
          restartCount: 0,
        },
      ],
      timestamp: 4,
    };
    const [sidecar] = pod.spec.initContainers ?? [];
    const [app] = pod.spec.containers;
    const restartSidecar = sidecar !== undefined && shouldContainerBeRestarted(sidecar, pod, status); // true: sidecars always restart
    const restartApp = app !== undefined && shouldContainerBeRestarted(app, pod, status); // false: restartPolicy Never
    const running = toRunningPod(status); // what killPod must stop: the sandbox, and no container still runs
    const selector = { [KUBERNETES_POD_UID_LABEL]: pod.metadata.uid }; // CRI label selector of the pod's sandboxes and containers
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(restartSidecar).toBe(true);
    expect(restartApp).toBe(false);
    expect(running.sandboxes.map((s) => s.id)).toEqual(['sb-1']);
    expect(running.containers).toEqual([]);
    expect(selector).toEqual({ 'io.kubernetes.pod.uid': 'uid-1' });
  });

  it('runs the fakes snippet, which is the README block verbatim', async () => {
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    };
    // FAKES:begin
    const clock = new FakeClock();
    const runtime = new FakeContainerRuntime({ clock });
    const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });

    await runtime.syncPod(pod, runtime.snapshot(pod.metadata.uid), backoff); // sandbox + containers running
    const app = runtime.latestContainer(pod.metadata.uid, 'app');
    runtime.exitContainer(app!.id, 1); // the container crashed
    runtime.failNext('syncPod', new Error('runtime down')); // the next sync fails
    const failed = await runtime.syncPod(pod, runtime.snapshot(pod.metadata.uid), backoff).catch((err: unknown) => err); // Error: runtime down
    runtime.onSyncPod = () => ({
      results: [{ action: 'StartContainer', target: 'app', reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' }],
    });
    const result = await runtime.syncPod(pod, runtime.snapshot(pod.metadata.uid), backoff);
    const syncs = runtime.callsOf('syncPod').length; // 3: every call is recorded
    // FAKES:end

    expect(app?.state).toBe('exited');
    expect(result.results[0]?.reason).toBe('ImagePullBackOff');
    expect(failed).toEqual(new Error('runtime down'));
    expect(syncs).toBe(3);
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8'), { begin: '// FAKES:' + 'begin', end: '// FAKES:' + 'end' }));
  });
});
