import { ApiError, createTwoWayMergePatch, NODE_PATCH_META, nodeStatusPatch, POD_PATCH_META } from './index.js';
import type { Node, PatchMeta } from './index.js';

// Expected patches were produced by apimachinery v0.34.4 strategicpatch.CreateTwoWayMergePatch
// (with v1.Node / v1.Pod) on the same documents; the bytes must match.
const UPSTREAM_CASES: { name: string; meta: PatchMeta; original: object; modified: object; patch: string }[] = [
  {
    name: 'heartbeat',
    meta: NODE_PATCH_META,
    original: {
      metadata: { name: 'n' },
      status: {
        conditions: [
          {
            type: 'MemoryPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasSufficientMemory',
          },
          {
            type: 'DiskPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasNoDiskPressure',
          },
          {
            type: 'PIDPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasSufficientPID',
          },
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletReady',
          },
        ],
      },
    },
    modified: {
      metadata: { name: 'n' },
      status: {
        conditions: [
          {
            type: 'MemoryPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:05:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasSufficientMemory',
          },
          {
            type: 'DiskPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:05:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasNoDiskPressure',
          },
          {
            type: 'PIDPressure',
            status: 'False',
            lastHeartbeatTime: '2026-01-01T00:05:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletHasSufficientPID',
          },
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2026-01-01T00:05:00Z',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'KubeletReady',
          },
        ],
      },
    },
    patch:
      '{"status":{"$setElementOrder/conditions":[{"type":"MemoryPressure"},{"type":"DiskPressure"},{"type":"PIDPressure"},{"type":"Ready"}],"conditions":[{"lastHeartbeatTime":"2026-01-01T00:05:00Z","type":"MemoryPressure"},{"lastHeartbeatTime":"2026-01-01T00:05:00Z","type":"DiskPressure"},{"lastHeartbeatTime":"2026-01-01T00:05:00Z","type":"PIDPressure"},{"lastHeartbeatTime":"2026-01-01T00:05:00Z","type":"Ready"}]}}',
  },
  {
    name: 'remove-condition',
    meta: NODE_PATCH_META,
    original: {
      status: {
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'True' },
          { type: 'C', status: 'True' },
        ],
      },
    },
    modified: {
      status: {
        conditions: [
          { type: 'C', status: 'True' },
          { type: 'A', status: 'False' },
        ],
      },
    },
    patch:
      '{"status":{"$setElementOrder/conditions":[{"type":"C"},{"type":"A"}],"conditions":[{"status":"False","type":"A"},{"$patch":"delete","type":"B"}]}}',
  },
  {
    name: 'reorder-only',
    meta: NODE_PATCH_META,
    original: {
      status: {
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'True' },
        ],
      },
    },
    modified: {
      status: {
        conditions: [
          { type: 'B', status: 'True' },
          { type: 'A', status: 'True' },
        ],
      },
    },
    patch: '{"status":{"$setElementOrder/conditions":[{"type":"B"},{"type":"A"}]}}',
  },
  {
    name: 'labels',
    meta: NODE_PATCH_META,
    original: { metadata: { labels: { a: '1', b: '2' }, annotations: { x: 'y' } } },
    modified: { metadata: { labels: { a: '1', c: '3' } } },
    patch: '{"metadata":{"annotations":null,"labels":{"b":null,"c":"3"}}}',
  },
  {
    name: 'atomic',
    meta: NODE_PATCH_META,
    original: {
      spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] },
      status: {
        images: [
          { names: ['a'], sizeBytes: 1 },
          { names: ['b'], sizeBytes: 2 },
        ],
      },
    },
    modified: {
      spec: {
        taints: [
          { key: 'a', effect: 'NoSchedule' },
          { key: 'b', effect: 'NoExecute' },
        ],
      },
      status: { images: [{ names: ['b'], sizeBytes: 2 }] },
    },
    patch:
      '{"spec":{"taints":[{"effect":"NoSchedule","key":"a"},{"effect":"NoExecute","key":"b"}]},"status":{"images":[{"names":["b"],"sizeBytes":2}]}}',
  },
  {
    name: 'finalizers',
    meta: POD_PATCH_META,
    original: { metadata: { finalizers: ['a', 'c'] } },
    modified: { metadata: { finalizers: ['b', 'a'] } },
    patch: '{"metadata":{"$deleteFromPrimitiveList/finalizers":["c"],"$setElementOrder/finalizers":["b","a"],"finalizers":["b"]}}',
  },
  {
    name: 'new-list',
    meta: POD_PATCH_META,
    original: { status: { phase: 'Pending' } },
    modified: {
      metadata: { uid: 'u-1' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }], containerStatuses: [{ name: 'c', ready: true }] },
    },
    patch:
      '{"metadata":{"uid":"u-1"},"status":{"containerStatuses":[{"name":"c","ready":true}],"phase":"Running","podIPs":[{"ip":"10.0.0.2"},{"ip":"fd00::2"}]}}',
  },
  {
    name: 'pod-status',
    meta: POD_PATCH_META,
    original: {
      status: {
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
        podIPs: [{ ip: '10.0.0.2' }],
        containerStatuses: [
          { name: 'a', ready: false },
          { name: 'b', ready: true },
        ],
      },
    },
    modified: {
      metadata: { uid: 'u-1' },
      status: {
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
        podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }],
        containerStatuses: [
          { name: 'a', ready: true },
          { name: 'b', ready: true },
        ],
      },
    },
    patch:
      '{"metadata":{"uid":"u-1"},"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"},{"type":"Ready"}],"$setElementOrder/podIPs":[{"ip":"10.0.0.2"},{"ip":"fd00::2"}],"conditions":[{"status":"True","type":"Ready"}],"containerStatuses":[{"name":"a","ready":true},{"name":"b","ready":true}],"podIPs":[{"ip":"fd00::2"}]}}',
  },
  {
    name: 'volumes-retain',
    meta: POD_PATCH_META,
    original: {
      spec: {
        volumes: [
          { name: 'v', emptyDir: {} },
          { name: 'w', emptyDir: {} },
        ],
      },
    },
    modified: {
      spec: {
        volumes: [
          { name: 'v', hostPath: { path: '/x' } },
          { name: 'w', emptyDir: {} },
        ],
      },
    },
    patch:
      '{"spec":{"$setElementOrder/volumes":[{"name":"v"},{"name":"w"}],"volumes":[{"$retainKeys":["hostPath","name"],"emptyDir":null,"hostPath":{"path":"/x"},"name":"v"}]}}',
  },
  {
    name: 'unsorted-unchanged-scalars',
    meta: POD_PATCH_META,
    original: { metadata: { finalizers: ['b', 'a'] } },
    modified: { metadata: { finalizers: ['b', 'a'] } },
    patch: '{"metadata":{"$setElementOrder/finalizers":["b","a"]}}',
  },
  {
    name: 'emptied',
    meta: NODE_PATCH_META,
    original: { metadata: { finalizers: ['a'], ownerReferences: [{ uid: 'u', name: 'o' }] } },
    modified: { metadata: { finalizers: [], ownerReferences: [] } },
    patch: '{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"ownerReferences":[{"$patch":"delete","uid":"u"}]}}',
  },
  {
    name: 'dup-keys',
    meta: NODE_PATCH_META,
    original: { status: { addresses: [{ type: 'Hostname', address: 'n' }] } },
    modified: {
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'Hostname', address: 'n' },
          { type: 'InternalIP', address: 'fd00::1' },
        ],
      },
    },
    patch:
      '{"status":{"$setElementOrder/addresses":[{"type":"InternalIP"},{"type":"Hostname"},{"type":"InternalIP"}],"addresses":[{"address":"fd00::1","type":"InternalIP"},{"address":"10.0.0.1","type":"InternalIP"}]}}',
  },
];

describe('createTwoWayMergePatch', () => {
  it.each(UPSTREAM_CASES)('$name: the bytes of upstream', ({ meta, original, modified, patch }) => {
    expect(JSON.stringify(createTwoWayMergePatch(original, modified, meta))).toBe(patch);
  });

  it('gives {} for identical objects, whatever undefined fields they carry', () => {
    const node = {
      metadata: { name: 'n', labels: { a: '1' }, uid: undefined },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    expect(
      createTwoWayMergePatch(node, structuredClone({ ...node, metadata: { name: 'n', labels: { a: '1' } } }), NODE_PATCH_META),
    ).toEqual({});
  });

  it('treats a field named __proto__ as a field', () => {
    const original = JSON.parse('{"metadata":{"labels":{"__proto__":"x","a":"1"}}}') as object;
    const modified = JSON.parse('{"metadata":{"labels":{"a":"1"}}}') as object;
    expect(JSON.stringify(createTwoWayMergePatch(original, modified, NODE_PATCH_META))).toBe('{"metadata":{"labels":{"__proto__":null}}}');
  });

  it('fails as upstream does on an item of a merged list without its merge key', () => {
    const run = () =>
      createTwoWayMergePatch(
        { status: { conditions: [{ status: 'True' }] } },
        { status: { conditions: [{ type: 'Ready' }] } },
        NODE_PATCH_META,
      );
    expect(run).toThrow(ApiError);
    expect(run).toThrow('conditions: an item has no merge key "type"');
  });

  it('fails on lists whose items are of different types', () => {
    expect(() =>
      createTwoWayMergePatch({ metadata: { finalizers: ['a', 1] } }, { metadata: { finalizers: ['a'] } }, POD_PATCH_META),
    ).toThrow('list items are not all of one type');
  });
});

const baseNode = (): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n', labels: { 'kubernetes.io/hostname': 'n' } },
  spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
  status: {
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'n' },
    ],
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' }],
  },
});

describe('nodeStatusPatch', () => {
  it('ignores the spec: the status subresource does not take it', () => {
    const next = baseNode();
    next.spec = { taints: [], unschedulable: true };
    expect(nodeStatusPatch(baseNode(), next)).toEqual({});
  });

  it('sends changed addresses whole, followed by a replace directive', () => {
    const next = baseNode();
    next.status!.addresses = [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'InternalIP', address: 'fd00::1' },
      { type: 'Hostname', address: 'n' },
    ];
    next.status!.conditions![0]!.lastHeartbeatTime = '2026-01-01T00:00:10Z';
    expect(JSON.stringify(nodeStatusPatch(baseNode(), next))).toBe(
      '{"status":{"$setElementOrder/conditions":[{"type":"Ready"}],' +
        '"addresses":[{"address":"10.0.0.1","type":"InternalIP"},{"address":"fd00::1","type":"InternalIP"},{"address":"n","type":"Hostname"},{"$patch":"replace"}],' +
        '"conditions":[{"lastHeartbeatTime":"2026-01-01T00:00:10Z","type":"Ready"}]}}',
    );
  });

  it('clears the addresses with a lone replace directive when none are left', () => {
    const next = baseNode();
    delete next.status!.addresses;
    expect(nodeStatusPatch(baseNode(), next)).toEqual({ status: { addresses: [{ $patch: 'replace' }] } });
  });

  it('sends the first addresses as a plain list, and label changes through metadata', () => {
    const old = baseNode();
    delete old.status!.addresses;
    const next = baseNode();
    next.metadata.labels = {};
    expect(nodeStatusPatch(old, next)).toEqual({
      metadata: { labels: { 'kubernetes.io/hostname': null } },
      status: { addresses: next.status!.addresses },
    });
  });
});
