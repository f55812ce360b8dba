// coordination.k8s.io/v1 Lease: the node's heartbeat in kube-node-lease. Its times are MicroTime
// (formatMicroTime of ./time.ts).
import { z } from 'zod';
import { OwnerReferenceSchema } from './schemas.js';

const str = z.string();
const int = z.number().int();
const stringMap = z.record(z.string(), z.string());

export const LeaseMetaSchema = z.looseObject({
  name: str,
  namespace: str.optional(),
  uid: str.optional(),
  resourceVersion: str.optional(),
  creationTimestamp: str.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
});
export type LeaseMeta = z.infer<typeof LeaseMetaSchema>;

/** coordination/v1 LeaseSpec. `acquireTime` and `renewTime` are MicroTime (`formatMicroTime`). */
export const LeaseSpecSchema = z.looseObject({
  holderIdentity: str.optional(),
  leaseDurationSeconds: int.optional(),
  acquireTime: str.optional(),
  renewTime: str.optional(),
  leaseTransitions: int.optional(),
  strategy: str.optional(),
  preferredHolder: str.optional(),
});
export type LeaseSpec = z.infer<typeof LeaseSpecSchema>;

export const LeaseSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: LeaseMetaSchema,
  spec: LeaseSpecSchema.optional(),
});
export type Lease = z.infer<typeof LeaseSchema>;

/** The namespace of the nodes' leases (upstream v1.NamespaceNodeLease). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
