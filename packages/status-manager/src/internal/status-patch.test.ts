import type { PodStatus } from '@kubelet-ts/api';
import { podStatusPatch } from './status-patch.js';

// A status as the API server returns it: Go's json.Marshal writes nulls, empty objects and zero fields.
const fromApi = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:03Z' }],
  containerStatuses: [
    {
      name: 'app',
      ready: false,
      restartCount: 0,
      image: 'busybox',
      imageID: '',
      started: true,
      lastState: {},
      state: { running: { startedAt: '2026-01-01T00:00:02Z' } },
    },
  ],
} as unknown as PodStatus;

const ours: PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:03Z' }],
  containerStatuses: [
    {
      name: 'app',
      ready: false,
      restartCount: 0,
      image: 'busybox',
      imageID: '',
      started: true,
      state: { running: { startedAt: '2026-01-01T00:00:02Z' } },
    },
  ],
};

describe('podStatusPatch', () => {
  it('is the UID precondition alone, and unchanged, when Go would decode both statuses alike', () => {
    expect(podStatusPatch('u1', fromApi, ours)).toEqual({ patch: { metadata: { uid: 'u1' } }, unchanged: true });
  });

  it('always carries the UID, and sends a changed container status list whole as Go writes it', () => {
    const restarted: PodStatus = structuredClone(ours);
    const cs = restarted.containerStatuses?.[0];
    if (cs !== undefined) cs.containerID = 'containerd://c2';
    const { patch, unchanged } = podStatusPatch('u1', fromApi, restarted);
    expect(unchanged).toBe(false);
    expect(patch).toEqual({
      metadata: { uid: 'u1' },
      status: {
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            image: 'busybox',
            imageID: '',
            started: true,
            containerID: 'containerd://c2',
            state: { running: { startedAt: '2026-01-01T00:00:02Z' } },
          },
        ],
      },
    });
  });

  it('merges conditions by type with the order directive, and nulls what the kubelet no longer reports', () => {
    const next: PodStatus = {
      ...structuredClone(ours),
      conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: '2026-01-01T00:00:09Z' }],
    };
    delete next.phase;
    const { patch } = podStatusPatch('u1', fromApi, next);
    expect(patch).toEqual({
      metadata: { uid: 'u1' },
      status: {
        '$setElementOrder/conditions': [{ type: 'Ready' }],
        conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: '2026-01-01T00:00:09Z' }],
        phase: null,
      },
    });
  });
});
