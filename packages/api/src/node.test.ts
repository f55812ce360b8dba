import { NodeSchema } from './node.js';
import { newNodeInfo } from './testing/index.js';

describe('Node schema', () => {
  it('parses a v1 Node as the API serves it, keeping fields it does not list', () => {
    const node = NodeSchema.parse({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '16318556Ki', pods: '110' },
        allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
          },
        ],
        addresses: [
          { type: 'InternalIP', address: '192.168.1.10' },
          { type: 'Hostname', address: 'node-1' },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: newNodeInfo(),
        images: [{ names: ['busybox:latest'], sizeBytes: 2_000_000 }],
        runtimeHandlers: [{ name: 'runc' }],
      },
    });
    expect(node.status?.nodeInfo).toEqual(newNodeInfo());
    expect(node.metadata).toEqual({ name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } });
    expect((node.status as Record<string, unknown>)['runtimeHandlers']).toEqual([{ name: 'runc' }]);
  });

  it('accepts an image whose names the API server serves as null (no tags, no digests)', () => {
    const node = NodeSchema.parse({
      metadata: { name: 'n' },
      status: {
        images: [
          { names: ['busybox:latest'], sizeBytes: 1 },
          { names: null, sizeBytes: 2 },
        ],
      },
    });
    expect(node.status?.images?.[1]).toEqual({ names: null, sizeBytes: 2 });
  });

  it('names the field of a value of the wrong type', () => {
    const result = NodeSchema.safeParse({ metadata: { name: 'n' }, status: { daemonEndpoints: { kubeletEndpoint: { Port: '10250' } } } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['status', 'daemonEndpoints', 'kubeletEndpoint', 'Port']);
  });
});
