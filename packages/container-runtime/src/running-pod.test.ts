import { toRunningPod, toRunningPodWithAllContainers } from './running-pod.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from './types.js';

function container(id: string, state: RuntimeContainerStatus['state'], createdAt: number): RuntimeContainerStatus {
  return { id, name: id, state, createdAt, image: 'busybox', imageRef: 'sha256:b', hash: `h-${id}`, restartCount: 0 };
}

const status: RuntimePodStatus = {
  uid: 'u-1',
  name: 'web',
  namespace: 'prod',
  ips: ['10.88.0.2'],
  sandboxes: [
    { id: 'sb-new', state: 'ready', createdAt: 20, attempt: 1, ip: '10.88.0.2', additionalIps: [], hostNetwork: false },
    { id: 'sb-old', state: 'notready', createdAt: 10, attempt: 0, additionalIps: [], hostNetwork: false },
  ],
  containers: [
    container('run', 'running', 5),
    container('made', 'created', 4),
    container('odd', 'unknown', 3),
    container('done', 'exited', 2),
  ],
  timestamp: 30,
};

describe('toRunningPod', () => {
  it('keeps every sandbox and only the running containers, attached to the newest sandbox (upstream ConvertPodStatusToRunningPod)', () => {
    expect(toRunningPod(status)).toEqual({
      uid: 'u-1',
      name: 'web',
      namespace: 'prod',
      sandboxes: [
        { id: 'sb-new', state: 'ready', createdAt: 20 },
        { id: 'sb-old', state: 'notready', createdAt: 10 },
      ],
      containers: [
        {
          id: 'run',
          name: 'run',
          state: 'running',
          image: 'busybox',
          imageRef: 'sha256:b',
          hash: 'h-run',
          createdAt: 5,
          sandboxId: 'sb-new',
        },
      ],
    });
  });

  it('toRunningPodWithAllContainers keeps created, unknown and exited containers too, in the status order', () => {
    const pod = toRunningPodWithAllContainers(status);
    expect(pod.containers.map((c) => [c.id, c.state, c.sandboxId])).toEqual([
      ['run', 'running', 'sb-new'],
      ['made', 'created', 'sb-new'],
      ['odd', 'unknown', 'sb-new'],
      ['done', 'exited', 'sb-new'],
    ]);
    expect(pod.sandboxes).toEqual(toRunningPod(status).sandboxes);
  });

  it('a pod without a sandbox gets an empty sandbox ID', () => {
    const bare = toRunningPod({ ...status, sandboxes: [] });
    expect(bare.sandboxes).toEqual([]);
    expect(bare.containers[0]?.sandboxId).toBe('');
  });
});
