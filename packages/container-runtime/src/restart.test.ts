import type { Container, Pod } from '@kubelet-ts/api';
import { findContainerStatus, shouldContainerBeRestarted } from './restart.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from './types.js';

const app: Container = { name: 'app', image: 'busybox' };
const sidecar: Container = { name: 'side', image: 'busybox', restartPolicy: 'Always' };
const init: Container = { name: 'init', image: 'busybox' };

function makePod(restartPolicy: Pod['spec']['restartPolicy'], meta: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'uid', ...meta },
    spec: { ...(restartPolicy === undefined ? {} : { restartPolicy }), initContainers: [init, sidecar], containers: [app] },
  };
}

let seq = 0;
function instance(name: string, state: RuntimeContainerStatus['state'], exitCode?: number): RuntimeContainerStatus {
  seq++;
  return {
    id: `${name}-${seq}`,
    name,
    state,
    createdAt: seq,
    image: 'busybox',
    imageRef: 'sha256:b',
    hash: 'h',
    restartCount: 0,
    ...(exitCode === undefined ? {} : { exitCode }),
  };
}

function status(...containers: RuntimeContainerStatus[]): RuntimePodStatus {
  // newest first, as the runtime reports them
  return { uid: 'uid', name: 'p', namespace: 'ns', ips: [], sandboxes: [], containers: [...containers].reverse(), timestamp: 0 };
}

describe('shouldContainerBeRestarted', () => {
  it.each([
    ['Always', 0, true],
    ['Always', 1, true],
    ['OnFailure', 0, false],
    ['OnFailure', 1, true],
    ['Never', 0, false],
    ['Never', 1, false],
  ] as const)('an exited container under %s with exit code %d: %s', (policy, exitCode, expected) => {
    expect(shouldContainerBeRestarted(app, makePod(policy), status(instance('app', 'exited', exitCode)))).toBe(expected);
  });

  it.each(['Always', 'OnFailure', 'Never'] as const)(
    'a sidecar (restartable init container) is always restarted, under %s too',
    (policy) => {
      for (const exitCode of [0, 1]) {
        expect(shouldContainerBeRestarted(sidecar, makePod(policy), status(instance('side', 'exited', exitCode)))).toBe(true);
      }
      // a regular init container follows the pod's policy
      expect(shouldContainerBeRestarted(init, makePod(policy), status(instance('init', 'exited', 0)))).toBe(policy === 'Always');
    },
  );

  it('starts what never ran, created or unknown instances; never restarts a running one', () => {
    const pod = makePod('Never');
    expect(shouldContainerBeRestarted(app, pod, status())).toBe(true);
    expect(shouldContainerBeRestarted(app, pod, status(instance('app', 'created')))).toBe(true);
    expect(shouldContainerBeRestarted(app, pod, status(instance('app', 'unknown')))).toBe(true);
    expect(shouldContainerBeRestarted(sidecar, pod, status(instance('side', 'running')))).toBe(false);
  });

  it('restarts nothing once the pod is marked deleted, sidecars included', () => {
    const pod = makePod('Always', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(shouldContainerBeRestarted(app, pod, status(instance('app', 'exited', 1)))).toBe(false);
    expect(shouldContainerBeRestarted(sidecar, pod, status(instance('side', 'exited', 1)))).toBe(false);
  });

  it('follows the newest instance only', () => {
    const pod = makePod('OnFailure');
    // the older instance failed, the newest succeeded: no restart under OnFailure
    const st = status(instance('app', 'exited', 1), instance('app', 'exited', 0));
    expect(findContainerStatus(st, 'app')?.exitCode).toBe(0);
    expect(shouldContainerBeRestarted(app, pod, st)).toBe(false);
  });
});
