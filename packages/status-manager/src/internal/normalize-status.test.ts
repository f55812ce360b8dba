import type { PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { canonicalStatus, MAX_POD_TERMINATION_MESSAGE_BYTES, normalizeStatus, toRfc3339Seconds } from './normalize-status.js';

describe('toRfc3339Seconds', () => {
  it('cuts fractions and moves offsets to UTC, as metav1.Time.Rfc3339Copy', () => {
    expect(toRfc3339Seconds('2026-01-01T00:00:05.123456789Z')).toBe('2026-01-01T00:00:05Z');
    expect(toRfc3339Seconds('2026-01-01T02:00:05.9+02:00')).toBe('2026-01-01T00:00:05Z');
    expect(toRfc3339Seconds('2026-01-01T00:00:05Z')).toBe('2026-01-01T00:00:05Z');
    expect(toRfc3339Seconds('not a time')).toBe('not a time');
  });
});

describe('normalizeStatus', () => {
  const pod = newPod({ name: 'p', containers: [{ name: 'b' }, { name: 'a' }], initContainers: [{ name: 'i1' }, { name: 'i2' }] });
  const cs = (name: string, message?: string): NonNullable<PodStatus['containerStatuses']>[number] => ({
    name,
    ready: false,
    restartCount: 0,
    image: 'busybox',
    imageID: '',
    state: {
      terminated: {
        exitCode: 1,
        startedAt: '2026-01-01T00:00:01.5Z',
        finishedAt: '2026-01-01T00:00:02.25Z',
        ...(message ? { message } : {}),
      },
    },
  });

  it('truncates terminated messages to an equal share of 12 KiB per container, at a character boundary', () => {
    const share = MAX_POD_TERMINATION_MESSAGE_BYTES / 4; // 2 containers + 2 init containers
    const long = 'x'.repeat(share - 1) + 'é' + 'y'.repeat(100); // 'é' is 2 bytes and straddles the limit
    const status = normalizeStatus(pod, {
      containerStatuses: [cs('b', long), cs('a', 'short')],
      initContainerStatuses: [{ ...cs('i1'), lastState: { terminated: { exitCode: 2, message: 'z'.repeat(share + 10) } } }],
    });
    const [a, b] = status.containerStatuses ?? [];
    expect(Buffer.byteLength(b?.state?.terminated?.message ?? '')).toBe(share - 1);
    expect(a?.state?.terminated?.message).toBe('short');
    expect(Buffer.byteLength(status.initContainerStatuses?.[0]?.lastState?.terminated?.message ?? '')).toBe(share);
  });

  it('puts timestamps at second precision, container statuses by name and init container statuses in spec order', () => {
    const status = normalizeStatus(pod, {
      startTime: '2026-01-01T00:00:00.999Z',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:03.7Z', lastProbeTime: '2026-01-01T00:00:04.1Z' },
      ],
      containerStatuses: [cs('b'), cs('a')],
      initContainerStatuses: [cs('i2'), cs('i1')],
    });
    expect(status.startTime).toBe('2026-01-01T00:00:00Z');
    expect(status.conditions?.[0]).toMatchObject({ lastTransitionTime: '2026-01-01T00:00:03Z', lastProbeTime: '2026-01-01T00:00:04Z' });
    expect(status.containerStatuses?.map((s) => s.name)).toEqual(['a', 'b']);
    expect(status.initContainerStatuses?.map((s) => s.name)).toEqual(['i1', 'i2']);
    expect(status.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      startedAt: '2026-01-01T00:00:01Z',
      finishedAt: '2026-01-01T00:00:02Z',
    });
  });
});

describe('normalizeStatus: ephemeral containers', () => {
  it('sorts their statuses by name, puts their timestamps at second precision and counts them for the message share', () => {
    const pod = newPod({ name: 'p', containers: [{ name: 'app' }] });
    pod.spec.ephemeralContainers = [
      { name: 'dbg', image: 'busybox' },
      { name: 'aaa', image: 'busybox' },
      { name: 'zzz', image: 'busybox' },
    ];
    const status = (name: string, message?: string): NonNullable<PodStatus['ephemeralContainerStatuses']>[number] => ({
      name,
      ready: false,
      restartCount: 0,
      image: 'busybox',
      imageID: '',
      state: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:00:02.25Z', ...(message ? { message } : {}) } },
    });
    const share = MAX_POD_TERMINATION_MESSAGE_BYTES / 4; // 1 container + 3 ephemeral containers
    const out = normalizeStatus(pod, { ephemeralContainerStatuses: [status('dbg', 'm'.repeat(share + 50)), status('aaa'), status('zzz')] });
    expect(out.ephemeralContainerStatuses?.map((s) => s.name)).toEqual(['aaa', 'dbg', 'zzz']);
    expect(out.ephemeralContainerStatuses?.[1]?.state?.terminated?.message).toHaveLength(share);
    expect(out.ephemeralContainerStatuses?.[0]?.state?.terminated?.finishedAt).toBe('2026-01-01T00:00:02Z');
  });
});

describe('canonicalStatus', () => {
  it('writes what Go would decode the same way the same: no nulls, empties or zero container fields', () => {
    const fromApi = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }],
      containerStatuses: [
        {
          name: 'a',
          ready: false,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
          started: false,
          lastState: {},
          state: { waiting: { reason: 'ContainerCreating' } },
        },
      ],
      podIPs: [],
      message: '',
    } as unknown as PodStatus;
    const ours: PodStatus = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      containerStatuses: [
        {
          name: 'a',
          ready: false,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
          started: false,
          state: { waiting: { reason: 'ContainerCreating' } },
        },
      ],
    };
    expect(canonicalStatus(fromApi)).toEqual(canonicalStatus(ours));
    expect(canonicalStatus(ours)).toEqual({
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      containerStatuses: [{ name: 'a', image: 'busybox', started: false, state: { waiting: { reason: 'ContainerCreating' } } }],
    });
    // Outside container statuses a zero is a value.
    expect(canonicalStatus({ observedGeneration: 0 } as PodStatus)).toEqual({ observedGeneration: 0 });
  });
});
