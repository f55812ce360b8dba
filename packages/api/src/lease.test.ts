import { LeaseSchema } from './index.js';

describe('the Lease', () => {
  it('parses a node lease as the API server returns it, and refuses one without a name', () => {
    const lease = LeaseSchema.parse({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'n',
        namespace: 'kube-node-lease',
        resourceVersion: '7',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' }],
      },
      spec: { holderIdentity: 'n', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:10.123000Z' },
    });
    expect(lease.spec?.leaseDurationSeconds).toBe(40);
    expect(LeaseSchema.safeParse({ metadata: {} }).success).toBe(false);
  });
});
