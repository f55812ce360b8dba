import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { ContainerEventResponse, ContainerStatus, PodSandboxStatus, RuntimeService } from '@kubelet-ts/cri-client';
import { criContainerEventSource, toRuntimeContainerEvent } from './evented-pleg.js';

const ms = (n: number): string => String(BigInt(n) * 1_000_000n);

function sandbox(): PodSandboxStatus {
  return {
    id: 'sb-1',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', attempt: 1 },
    state: 'SANDBOX_READY',
    createdAt: ms(1_000),
    network: { ip: '10.77.0.9', additionalIps: [{ ip: 'fd00::9' }] },
    linux: null,
    labels: {},
    annotations: {},
    runtimeHandler: '',
  } as unknown as PodSandboxStatus;
}

function container(id: string, fields: Partial<ContainerStatus>): ContainerStatus {
  return {
    id,
    metadata: { name: 'app', attempt: 0 },
    state: 'CONTAINER_RUNNING',
    createdAt: ms(2_000),
    startedAt: ms(2_100),
    finishedAt: '0',
    exitCode: 0,
    image: { image: 'busybox', userSpecifiedImage: 'busybox:1.36' },
    imageRef: 'sha256:b',
    reason: '',
    message: '',
    labels: { 'io.kubernetes.container.name': 'app', 'io.kubernetes.pod.uid': 'uid-1' },
    annotations: { 'io.kubernetes.container.hash': 'abc', 'io.kubernetes.container.restartCount': '3' },
    mounts: [],
    logPath: '',
    ...fields,
  } as unknown as ContainerStatus;
}

describe('CRI container events for the evented PLEG', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evented-pleg-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("converts the event's sandbox and containers as GetPodStatus does, newest container first, with the termination message", async () => {
    const messageFile = join(dir, 'termination-log');
    await writeFile(messageFile, 'bye');
    const event = {
      containerId: 'c-2',
      containerEventType: 'CONTAINER_STOPPED_EVENT',
      createdAt: ms(5_000),
      podSandboxStatus: sandbox(),
      containersStatuses: [
        container('c-1', { createdAt: ms(2_000) }),
        container('c-2', {
          createdAt: ms(3_000),
          state: 'CONTAINER_EXITED',
          exitCode: 1,
          finishedAt: ms(4_000),
          reason: 'Error',
          annotations: {
            'io.kubernetes.container.hash': 'abc',
            'io.kubernetes.container.restartCount': '4',
            'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
          },
          mounts: [{ containerPath: '/dev/termination-log', hostPath: messageFile }],
        } as unknown as Partial<ContainerStatus>),
        container('pause-like', { labels: {} }),
      ],
    } as unknown as ContainerEventResponse;
    const converted = await toRuntimeContainerEvent(event);
    expect(converted).toEqual({
      containerId: 'c-2',
      type: 'CONTAINER_STOPPED_EVENT',
      createdAt: 5_000,
      podStatus: {
        uid: 'uid-1',
        name: 'web',
        namespace: 'default',
        ips: ['10.77.0.9', 'fd00::9'],
        sandboxes: [
          { id: 'sb-1', state: 'ready', createdAt: 1_000, attempt: 1, ip: '10.77.0.9', additionalIps: ['fd00::9'], hostNetwork: false },
        ],
        containers: [
          {
            id: 'c-2',
            name: 'app',
            state: 'exited',
            createdAt: 3_000,
            startedAt: 2_100,
            finishedAt: 4_000,
            exitCode: 1,
            image: 'busybox:1.36',
            imageRef: 'sha256:b',
            hash: 'abc',
            restartCount: 4,
            reason: 'Error',
            message: 'bye',
          },
          {
            id: 'c-1',
            name: 'app',
            state: 'running',
            createdAt: 2_000,
            startedAt: 2_100,
            image: 'busybox:1.36',
            imageRef: 'sha256:b',
            hash: 'abc',
            restartCount: 3,
          },
        ],
        timestamp: 5_000,
      },
    });
  });

  it('has no pod status for an event without a sandbox status or its metadata, and passes an unknown type on', async () => {
    const bare = {
      containerId: 'c-1',
      containerEventType: 'CONTAINER_DELETED_EVENT',
      createdAt: ms(1),
      podSandboxStatus: null,
      containersStatuses: [],
    };
    expect((await toRuntimeContainerEvent(bare as unknown as ContainerEventResponse)).podStatus).toBeUndefined();
    const noMetadata = { ...bare, podSandboxStatus: { ...sandbox(), metadata: null } };
    expect((await toRuntimeContainerEvent(noMetadata as unknown as ContainerEventResponse)).podStatus).toBeUndefined();
    const odd = { ...bare, containerEventType: 7 };
    expect((await toRuntimeContainerEvent(odd as unknown as ContainerEventResponse)).type).toBe('7');
  });

  it('streams GetContainerEvents, skipping (and logging) an event it cannot convert', async () => {
    const good = {
      containerId: 'c-1',
      containerEventType: 'CONTAINER_STARTED_EVENT',
      createdAt: ms(9),
      podSandboxStatus: sandbox(),
      containersStatuses: [],
    };
    const broken = { ...good, containersStatuses: 'nope' };
    const calls: unknown[] = [];
    const runtime: Pick<RuntimeService, 'getContainerEvents'> = {
      async *getContainerEvents(request, options) {
        calls.push(request, options?.timeoutMs);
        yield broken as unknown as ContainerEventResponse;
        yield good as unknown as ContainerEventResponse;
      },
    };
    const logger = new RecordingLogger();
    const seen = [];
    for await (const event of criContainerEventSource(runtime, logger).getContainerEvents(new AbortController().signal)) seen.push(event);
    expect(seen.map((e) => e.containerId)).toEqual(['c-1']);
    expect(calls).toEqual([{}, undefined]);
    expect(logger.records.map((r) => r.msg)).toEqual(['Evented PLEG: ignoring a container event']);
  });
});
