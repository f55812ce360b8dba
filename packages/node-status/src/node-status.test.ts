import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeSchema } from '@kubelet-ts/api';
import { newNodeInfo } from '@kubelet-ts/api/testing';
import type { NodeCondition } from '@kubelet-ts/api';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import {
  conditions,
  createNodeStatus,
  daemonEndpoints,
  goArch,
  images,
  machineInfo,
  nodeAddress,
  osImageFrom,
  platformInfo,
  readHostInfo,
  versionInfo,
} from './index.js';
import { FakeNodeSink } from './testing/index.js';

const pressure = (type: string, status: 'True' | 'False'): NodeCondition => ({
  type,
  status,
  lastHeartbeatTime: '2026-01-01T00:00:10Z',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason: `reason-${type}`,
  message: `message-${type}`,
});

describe('node status: the built node', () => {
  it('fills addresses, capacity and allocatable, nodeInfo, daemon endpoints, images and conditions, as a valid v1 Node', async () => {
    const info = newNodeInfo({ machineID: 'mid', systemUUID: 'uuid', bootID: 'boot', architecture: 'arm64' });
    const status = createNodeStatus({
      nodeName: 'node-1',
      labels: { 'kubernetes.io/hostname': 'node-1' },
      setters: [
        nodeAddress({ nodeIPs: () => ['192.168.1.10', 'fd00::10'], hostname: () => 'node-1' }),
        machineInfo({
          capacity: () => ({ cpu: '4', memory: '8Gi' }),
          allocatable: () => ({ cpu: '3800m', memory: '7Gi' }),
          maxPods: 110,
          machineID: () => info.machineID,
          systemUUID: () => info.systemUUID,
          bootID: async () => info.bootID,
        }),
        versionInfo({
          kernelVersion: () => info.kernelVersion,
          osImage: () => info.osImage,
          containerRuntimeVersion: async () => info.containerRuntimeVersion,
          kubeletVersion: info.kubeletVersion,
        }),
        platformInfo({ operatingSystem: info.operatingSystem, architecture: info.architecture }),
        daemonEndpoints(() => 10250),
        images(
          () => [
            { repoTags: ['small:1'], repoDigests: [], sizeBytes: 10 },
            { repoTags: ['big:1', 'big:latest'], repoDigests: ['big@sha256:b'], sizeBytes: 1000 },
            { repoTags: ['mid:1'], repoDigests: [], sizeBytes: 100 },
          ],
          2,
        ),
        conditions(() => [pressure('MemoryPressure', 'False'), pressure('DiskPressure', 'True')]),
      ],
    });
    const node = await status.getNode();
    expect(node).toEqual({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      status: {
        addresses: [
          { type: 'InternalIP', address: '192.168.1.10' },
          { type: 'InternalIP', address: 'fd00::10' },
          { type: 'Hostname', address: 'node-1' },
        ],
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' },
        nodeInfo: info,
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        images: [
          { names: ['big@sha256:b', 'big:1', 'big:latest'], sizeBytes: 1000 },
          { names: ['mid:1'], sizeBytes: 100 },
        ],
        conditions: [pressure('MemoryPressure', 'False'), pressure('DiskPressure', 'True')],
      },
    });
    expect(NodeSchema.safeParse(node).success).toBe(true);
    // Each call builds anew: a changed provider shows at once.
    expect(await status.getNode()).not.toBe(node);
  });

  it('labels the node with its hostname, os and arch by default, and keeps going past a setter that fails', async () => {
    const logger = new RecordingLogger();
    const status = createNodeStatus({
      nodeName: 'node-1',
      setters: [
        versionInfo({
          kernelVersion: () => '6.1.0',
          osImage: () => 'x',
          containerRuntimeVersion: () => Promise.reject(new Error('runtime down')),
          kubeletVersion: 'v1',
        }),
        daemonEndpoints(() => 0),
      ],
      logger,
    });
    const node = await status.getNode();
    expect(node.metadata.labels).toEqual({
      'kubernetes.io/hostname': 'node-1',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': goArch(),
    });
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 0 } });
    expect(node.status?.nodeInfo).toMatchObject({ kernelVersion: '6.1.0', containerRuntimeVersion: '' });
    expect(logger.find('Failed to set some node status fields')[0]?.fields).toMatchObject({
      setter: 'VersionInfo',
      node: 'node-1',
      err: 'runtime down',
    });
  });

  it('falls back to capacity for allocatable while allocatable is unknown; keeps every image with maxImages -1', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ repoTags: [`img:${i}`], repoDigests: [], sizeBytes: i }));
    const node = await createNodeStatus({
      nodeName: 'n',
      setters: [
        machineInfo({ capacity: () => ({ cpu: '2', memory: '1Gi' }), allocatable: () => undefined, maxPods: 10 }),
        images(() => many, -1),
      ],
    }).getNode();
    expect(node.status?.allocatable).toEqual({ cpu: '2', memory: '1Gi', pods: '10' });
    expect(node.status?.images).toHaveLength(60);
    expect(node.status?.images?.[0]?.names).toEqual(['img:59']);
  });

  it('limits pods to podsPerCore × cores when that is below maxPods (upstream MachineInfo)', async () => {
    const podsWith = async (podsPerCore: number, cpu: string): Promise<string | number | undefined> =>
      (
        await createNodeStatus({
          nodeName: 'n',
          setters: [machineInfo({ capacity: () => ({ cpu, memory: '1Gi' }), allocatable: () => undefined, maxPods: 110, podsPerCore })],
        }).getNode()
      ).status?.capacity?.['pods'];
    expect(await podsWith(10, '4')).toBe('40');
    expect(await podsWith(50, '4')).toBe('110');
    expect(await podsWith(0, '4')).toBe('110');
  });

  it('syncNodeStatus hands the built node to the sink', async () => {
    const sink = new FakeNodeSink();
    const status = createNodeStatus({ nodeName: 'n', setters: [daemonEndpoints(() => 10250)], sink });
    await status.syncNodeStatus();
    expect(sink.latest?.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBe(10250);
    sink.error = new Error('apiserver unreachable');
    await expect(status.syncNodeStatus()).rejects.toThrow('apiserver unreachable');
    expect(sink.nodes).toHaveLength(2);
  });
});

describe('node status: host info', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'node-status-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads machine-id, the system UUID (machine-id without DMI, as cadvisor), the boot ID and os-release; a missing file gives ""', async () => {
    await mkdir(join(root, 'etc'), { recursive: true });
    await mkdir(join(root, 'proc/sys/kernel/random'), { recursive: true });
    await writeFile(join(root, 'etc/machine-id'), 'abc123\n');
    await writeFile(join(root, 'proc/sys/kernel/random/boot_id'), 'boot-1\n');
    await writeFile(join(root, 'etc/os-release'), 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n');
    expect(await readHostInfo(root, () => '6.1.0-18-amd64')).toEqual({
      machineID: 'abc123',
      systemUUID: 'abc123',
      bootID: 'boot-1',
      kernelVersion: '6.1.0-18-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
    });
    await mkdir(join(root, 'sys/class/dmi/id'), { recursive: true });
    await writeFile(join(root, 'sys/class/dmi/id/product_uuid'), 'EC2A-UUID\n');
    expect((await readHostInfo(root)).systemUUID).toBe('EC2A-UUID');
    expect(osImageFrom('ID=alpine\n')).toBe('Linux');
    expect(osImageFrom("PRETTY_NAME='Alpine Linux v3.20'")).toBe('Alpine Linux v3.20');
  });
});
