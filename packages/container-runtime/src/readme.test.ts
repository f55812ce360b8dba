// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { KUBERNETES_POD_UID_LABEL, shouldContainerBeRestarted, toRunningPod } from './index.js';
import type { RuntimePodStatus } from './index.js';

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
        { id: 'c-2', name: 'proxy', state: 'exited', exitCode: 1, createdAt: 3, image: 'envoy', imageRef: 'sha256:e', hash: 'a1', restartCount: 0 },
        { id: 'c-1', name: 'app', state: 'exited', exitCode: 1, createdAt: 2, image: 'nginx', imageRef: 'sha256:n', hash: 'b2', restartCount: 0 },
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
});
