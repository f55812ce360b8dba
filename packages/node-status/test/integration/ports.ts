// The ports of @kubelet-ts/node-status over the test REST client (the kubelet's adapters are in apps/kubelet).
import { STRATEGIC_MERGE_PATCH_CONTENT_TYPE } from '@kubelet-ts/api';
import type { Lease } from '@kubelet-ts/api';
import type { LeaseApi, NodeApi } from '../../src/index.js';
import type { RestClient } from './rest.js';

export function nodeApiOver(client: RestClient): NodeApi {
  return {
    create: (node) => client.call('POST', '/api/v1/nodes', node),
    get: (name) => client.call('GET', `/api/v1/nodes/${name}`),
    patchStatus: (name, patch) => client.call('PATCH', `/api/v1/nodes/${name}/status`, patch, STRATEGIC_MERGE_PATCH_CONTENT_TYPE),
  };
}

const leasePath = (namespace: string, name?: string): string =>
  `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases${name === undefined ? '' : `/${name}`}`;

export function leaseApiOver(client: RestClient): LeaseApi {
  return {
    get: (namespace, name) => client.call('GET', leasePath(namespace, name)),
    create: (lease: Lease) => client.call('POST', leasePath(lease.metadata.namespace ?? ''), lease),
    update: (lease: Lease) => client.call('PUT', leasePath(lease.metadata.namespace ?? '', lease.metadata.name), lease),
  };
}
