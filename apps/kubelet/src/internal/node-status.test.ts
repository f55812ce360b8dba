import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Node } from '@kubelet-ts/api';
import { FakeClock, RecordingEventRecorder, RecordingLogger } from '@kubelet-ts/common/testing';
import { FakeImageService, FakeRuntimeService } from '@kubelet-ts/cri-client/testing';
import { FakeEvictionManager } from '@kubelet-ts/eviction-manager/testing';
import { createRuntimeState } from '@kubelet-ts/node-status';
import { createRouter } from '@kubelet-ts/server';
import { nodeResourceGetters } from './node-resources.js';
import { createKubeletNodeStatus, genericVersion, installNodeRoute } from './node-status.js';

const host = { machineID: 'mid', systemUUID: '', bootID: 'boot', kernelVersion: '6.1.0', osImage: 'Debian GNU/Linux 12 (bookworm)' };

async function getNode(router: ReturnType<typeof createRouter>): Promise<Node> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => router.listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return (await (await fetch(`http://127.0.0.1:${port}/node`)).json()) as Node;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

type Options = Parameters<typeof createKubeletNodeStatus>[0];

function readyRuntime(): ReturnType<typeof createRuntimeState> {
  const state = createRuntimeState({ clock: new FakeClock() });
  state.setRuntimeStatus([
    { type: 'RuntimeReady', status: true },
    { type: 'NetworkReady', status: true },
  ]);
  return state;
}

function nodeStatusOf(overrides: Partial<Options>): ReturnType<typeof createKubeletNodeStatus> {
  return createKubeletNodeStatus({
    nodeName: 'node-a',
    getNodeIPs: () => ['192.168.1.10'],
    kubeletVersion: 'v1.34.0-kubelet-ts.0.1.0',
    maxPods: 110,
    maxImages: 50,
    kubeletPort: 0,
    resources: nodeResourceGetters({ getNodeAllocatable: () => undefined }, () => ({ cpuMilli: 2000, memoryBytes: 4 * 1024 ** 3 })),
    eviction: new FakeEvictionManager(),
    cri: { runtime: new FakeRuntimeService(), image: new FakeImageService() },
    hostInfo: async () => host,
    hugePages: async () => ({ 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' }),
    runtimeState: readyRuntime(),
    localStorageCapacityIsolation: false,
    clock: new FakeClock(),
    recorder: new RecordingEventRecorder(),
    logger: new RecordingLogger(),
    ...overrides,
  });
}

describe('GET /node', () => {
  it('serves the v1 Node: the eviction conditions, addresses, capacity and allocatable, versions and images', async () => {
    const image = new FakeImageService({ images: [{ ref: 'busybox:1.36', size: 4_400_000 }] });
    const allocatable = {
      capacity: { cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3 },
      allocatable: { cpuMilli: 3800, memoryBytes: 7 * 1024 ** 3 },
    };
    const nodeStatus = nodeStatusOf({
      resources: nodeResourceGetters({ getNodeAllocatable: () => allocatable as never }),
      eviction: new FakeEvictionManager({ conditions: ['MemoryPressure'] }),
      cri: { runtime: new FakeRuntimeService({ runtimeName: 'containerd', runtimeVersion: '1.6.20' }), image },
    });
    const router = createRouter();
    installNodeRoute(router, nodeStatus);
    const node = await getNode(router);
    expect(node.kind).toBe('Node');
    expect(node.metadata).toEqual({
      name: 'node-a',
      labels: { 'kubernetes.io/hostname': 'node-a', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': expect.any(String) },
    });
    expect(node.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
      ['Ready', 'True', 'KubeletReady'],
    ]);
    expect(node.status?.addresses).toEqual([
      { type: 'InternalIP', address: '192.168.1.10' },
      { type: 'Hostname', address: 'node-a' },
    ]);
    const hugePages = { 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' };
    expect(node.status?.capacity).toEqual({ cpu: '4000m', memory: String(8 * 1024 ** 3), pods: '110', ...hugePages });
    expect(node.status?.allocatable).toEqual({ cpu: '3800m', memory: String(7 * 1024 ** 3), pods: '110', ...hugePages });
    expect(node.status?.nodeInfo).toMatchObject({
      machineID: 'mid',
      bootID: 'boot',
      osImage: host.osImage,
      containerRuntimeVersion: 'containerd://1.6.20',
      kubeletVersion: 'v1.34.0-kubelet-ts.0.1.0',
      operatingSystem: 'linux',
    });
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 0 } });
    expect(node.status?.images).toEqual([
      { names: [expect.stringMatching(/busybox@sha256:/), 'docker.io/library/busybox:1.36'], sizeBytes: 4_400_000 },
    ]);
  });

  it('shows the machine capacity until the cgroup manager computed allocatable, and asks the runtime its version once', async () => {
    const runtime = new FakeRuntimeService();
    const nodeStatus = nodeStatusOf({ maxPods: 10, cri: { runtime, image: new FakeImageService() } });
    const first = await nodeStatus.getNode();
    await nodeStatus.getNode();
    expect(first.status?.capacity).toEqual({
      cpu: '2000m',
      memory: String(4 * 1024 ** 3),
      pods: '10',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
    });
    expect(first.status?.allocatable).toEqual(first.status?.capacity);
    expect(runtime.calls.filter((c) => c.method === 'version')).toHaveLength(1);
  });

  it("is NotReady with the runtime's reasons and the missing ephemeral-storage capacity, and records NodeReady when that changes", async () => {
    const clock = new FakeClock();
    const recorder = new RecordingEventRecorder();
    const runtimeState = createRuntimeState({ clock });
    const disk: { bytes?: number } = {};
    const nodeStatus = nodeStatusOf({
      runtimeState,
      clock,
      recorder,
      localStorageCapacityIsolation: true,
      resources: nodeResourceGetters({ getNodeAllocatable: () => undefined }, () => ({
        cpuMilli: 2000,
        memoryBytes: 4 * 1024 ** 3,
        ...(disk.bytes !== undefined ? { ephemeralStorageBytes: disk.bytes } : {}),
      })),
    });
    const node = await nodeStatus.getNode();
    const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready(node)).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message: '[container runtime status check may not have completed yet, missing node capacity for resources: ephemeral-storage]',
    });
    runtimeState.setRuntimeStatus([
      { type: 'RuntimeReady', status: true },
      { type: 'NetworkReady', status: true },
    ]);
    disk.bytes = 100 * 1024 ** 3;
    await nodeStatus.setNodeStatus(node);
    expect(ready(node)).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(node.status?.capacity?.['ephemeral-storage']).toBe(String(100 * 1024 ** 3));
    expect(recorder.events.map((e) => e.reason)).toContain('NodeReady');
  });

  it("reports the runtime's version as upstream's generic version parse prints it", () => {
    expect(genericVersion('1.6.20~ds1')).toBe('1.6.20');
    expect(genericVersion('2.2.9+unknown')).toBe('2.2.9+unknown');
    expect(genericVersion('v1.7.0-rc.1')).toBe('1.7.0-rc.1');
    expect(genericVersion('nightly')).toBe('nightly');
  });
});
