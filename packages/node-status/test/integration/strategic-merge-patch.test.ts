// The patches of @kubelet-ts/api, applied by the real kube-apiserver: what it makes of them is the
// proof that they mean what upstream's mean.
import {
  createTwoWayMergePatch,
  NODE_PATCH_META,
  nodeStatusPatch,
  POD_PATCH_META,
  STRATEGIC_MERGE_PATCH_CONTENT_TYPE,
} from '@kubelet-ts/api';
import type { Node, NodeCondition, Pod } from '@kubelet-ts/api';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { PATCH_CONTENT_TYPES } from '@kubelet-ts/kube-client';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { deleteNode, kubeClient, randomSuffix, statusOf } from './kube.js';

const env = controlPlaneEnv();
let admin: KubeClient;
const nodeName = `kts-test-smp-${randomSuffix()}`;
const podName = `kts-test-smp-${randomSuffix()}`;

const condition = (type: string, status: string, reason: string, at: string): NodeCondition => ({
  type,
  status,
  reason,
  message: `${type} is ${status}`,
  lastHeartbeatTime: at,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

const patchStatus = async (name: string, patch: unknown): Promise<Node> =>
  (await admin.patch(`/api/v1/nodes/${name}/status`, patch, 'strategic')) as Node;
const getNode = async (name: string): Promise<Node> => (await admin.get(`/api/v1/nodes/${name}`)) as Node;

beforeAll(async () => {
  admin = await kubeClient(env.kubeconfig);
});

afterAll(async () => {
  await deleteNode(admin, nodeName);
  await statusOf(admin.delete(`/api/v1/namespaces/default/pods/${podName}`, { body: { gracePeriodSeconds: 0 } }));
  admin.closeAllConnections();
});

describe('strategic merge patches on the real API server', () => {
  let node: Node;

  beforeAll(async () => {
    node = (await admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName, 'example.com/gone': 'soon' } },
      spec: { taints: [{ key: 'example.com/t', effect: 'NoSchedule' }] },
      status: {
        conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((t) =>
          condition(t, 'False', `Kubelet${t}`, '2026-01-01T00:00:00Z'),
        ),
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'Hostname', address: nodeName },
        ],
      },
    })) as Node;
  });

  it('merges conditions in order, replaces the addresses and removes a label (nodeStatusPatch)', async () => {
    const next = structuredClone(node);
    delete next.metadata.labels!['example.com/gone'];
    next.spec = { taints: [] }; // ignored: nodes/status keeps the spec
    next.status!.conditions = next.status!.conditions!.map((c) =>
      c.type === 'Ready'
        ? condition('Ready', 'True', 'KubeletReady', '2026-01-01T00:00:10Z')
        : { ...c, lastHeartbeatTime: '2026-01-01T00:00:10Z' },
    );
    next.status!.addresses = [
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'InternalIP', address: 'fd00::2' },
      { type: 'Hostname', address: nodeName },
    ];
    const patch = nodeStatusPatch(node, next);
    expect(patch['spec']).toBeUndefined();
    // Sent as the kubelet sends it: kube-client's strategic type is this content type.
    expect(PATCH_CONTENT_TYPES.strategic).toBe(STRATEGIC_MERGE_PATCH_CONTENT_TYPE);
    const result = await patchStatus(nodeName, patch);

    expect(result.metadata.labels).toEqual({ 'kubernetes.io/hostname': nodeName });
    // The spec is not ours through nodes/status (the node lifecycle controller may add its not-ready taint).
    expect(result.spec?.taints).toContainEqual({ key: 'example.com/t', effect: 'NoSchedule' });
    expect(result.status?.addresses).toEqual(next.status!.addresses);
    expect(result.status?.conditions).toEqual(next.status!.conditions);
    node = result;
  });

  it('deletes a condition and reorders the others with $setElementOrder', async () => {
    const next = structuredClone(node);
    const [memory, disk, pid, ready] = next.status!.conditions!;
    next.status!.conditions = [ready!, pid!, memory!];
    const patch = createTwoWayMergePatch(node, next, NODE_PATCH_META);
    expect(JSON.stringify(patch)).toBe(
      '{"status":{"$setElementOrder/conditions":[{"type":"Ready"},{"type":"PIDPressure"},{"type":"MemoryPressure"}],' +
        '"conditions":[{"$patch":"delete","type":"DiskPressure"}]}}',
    );
    const result = await patchStatus(nodeName, patch);
    expect(result.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'PIDPressure', 'MemoryPressure']);
    expect(result.status?.conditions).toEqual(next.status!.conditions);
    expect(disk?.type).toBe('DiskPressure');
    node = result;
  });

  it('sends {} for no change, which the server takes without a new resourceVersion', async () => {
    // The controller manager may write the node between our GET and PATCH: try a few times.
    let same = false;
    for (let attempt = 0; attempt < 3 && !same; attempt++) {
      const current = await getNode(nodeName);
      const patch = nodeStatusPatch(current, structuredClone(current));
      expect(patch).toEqual({});
      const result = await patchStatus(nodeName, patch);
      same = result.metadata.resourceVersion === current.metadata.resourceVersion;
    }
    expect(same).toBe(true);
  });

  it('patches pods/status: kubelet conditions merged, podIPs by ip, containerStatuses whole, the UID as precondition', async () => {
    const created = (await admin.create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      // A node that does not exist: the scheduler leaves the pod alone and no kubelet runs it.
      metadata: { name: podName },
      spec: { nodeName: `no-such-node-${randomSuffix()}`, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
    })) as Pod;
    const uid = created.metadata!.uid!;
    const path = `/api/v1/namespaces/default/pods/${podName}/status`;
    const other = { type: 'example.com/Gate', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const first = (await admin.patch(path, { status: { conditions: [other] } }, 'strategic')) as Pod;

    const running = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:05Z' }, other],
      podIPs: [{ ip: '10.244.0.5' }],
      containerStatuses: [
        {
          name: 'c',
          ready: true,
          restartCount: 0,
          image: 'registry.k8s.io/pause:3.10',
          imageID: '',
          state: { running: { startedAt: '2026-01-01T00:00:04Z' } },
        },
      ],
    };
    const patch = createTwoWayMergePatch(
      { status: first.status },
      { metadata: { uid }, status: { ...first.status, ...running } },
      POD_PATCH_META,
    );
    const result = (await admin.patch(path, patch, 'strategic')) as Pod;
    expect(result.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'example.com/Gate']);
    expect(result.status?.podIPs).toEqual([{ ip: '10.244.0.5' }]);
    expect(result.status?.containerStatuses?.[0]?.ready).toBe(true);

    // A patch for another pod of the same name (another UID) is refused.
    const stale = createTwoWayMergePatch(
      { status: {} },
      { metadata: { uid: '00000000-0000-0000-0000-000000000000' }, status: { phase: 'Failed' } },
      POD_PATCH_META,
    );
    expect(await statusOf(admin.patch(path, stale, 'strategic'))).toBeGreaterThanOrEqual(400);
    const after = (await admin.get(`/api/v1/namespaces/default/pods/${podName}`)) as Pod;
    expect(after.status?.phase).toBe('Running');
  });
});
