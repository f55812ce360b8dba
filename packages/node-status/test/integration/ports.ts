// The ports of this package over kube-client, as apps/kubelet wires them.
import type { Lease } from '@kubelet-ts/api';
import type { KubeClient } from '@kubelet-ts/kube-client';
import type { LeaseApi, NodeApi } from '../../src/index.js';

export function nodeApiOver(client: KubeClient): NodeApi {
  return {
    create: (node) => client.create('/api/v1/nodes', node),
    get: (name) => client.get(`/api/v1/nodes/${name}`),
    patchStatus: (name, patch) => client.patch(`/api/v1/nodes/${name}/status`, patch, 'strategic'),
  };
}

const leases = (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;

export function leaseApiOver(client: KubeClient): LeaseApi {
  return {
    get: (namespace, name) => client.get(`${leases(namespace)}/${name}`),
    create: (lease: Lease) => client.create(leases(lease.metadata.namespace ?? ''), lease),
    update: (lease: Lease) => client.update(`${leases(lease.metadata.namespace ?? '')}/${lease.metadata.name}`, lease),
  };
}
