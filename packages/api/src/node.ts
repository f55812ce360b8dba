// core/v1 Node as the kubelet builds and reports it. Loose objects, as the Pod schemas: unknown
// fields are kept; field names are exactly the Kubernetes JSON names.
import { z } from 'zod';
import { OwnerReferenceSchema, ResourceListSchema } from './schemas.js';

const str = z.string();
const int = z.number().int();
const bool = z.boolean();
const stringMap = z.record(z.string(), z.string());

/** The metadata of a cluster-scoped object: no namespace, and nothing defaulted (a Node shows only what is set). */
export const NodeMetaSchema = z.looseObject({
  name: str,
  uid: str.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  resourceVersion: str.optional(),
  creationTimestamp: str.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
});
export type NodeMeta = z.infer<typeof NodeMetaSchema>;

export const TaintSchema = z.looseObject({ key: str, value: str.optional(), effect: str, timeAdded: str.optional() });
export type Taint = z.infer<typeof TaintSchema>;

export const NodeSpecSchema = z.looseObject({
  podCIDR: str.optional(),
  podCIDRs: z.array(str).optional(),
  providerID: str.optional(),
  unschedulable: z.boolean().optional(),
  taints: z.array(TaintSchema).optional(),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;

/** Upstream v1.NodeCondition: `Ready`, `MemoryPressure`, `DiskPressure`, `PIDPressure`, `NetworkUnavailable`. */
export const NodeConditionSchema = z.looseObject({
  type: str,
  status: str,
  lastHeartbeatTime: str.optional(),
  lastTransitionTime: str.optional(),
  reason: str.optional(),
  message: str.optional(),
});
export type NodeCondition = z.infer<typeof NodeConditionSchema>;

/** Upstream v1.NodeAddress: `Hostname`, `InternalIP`, `ExternalIP`, `InternalDNS`, `ExternalDNS`. */
export const NodeAddressSchema = z.looseObject({ type: str, address: str });
export type NodeAddress = z.infer<typeof NodeAddressSchema>;

export const DaemonEndpointSchema = z.looseObject({ Port: int });
export type DaemonEndpoint = z.infer<typeof DaemonEndpointSchema>;

export const NodeDaemonEndpointsSchema = z.looseObject({ kubeletEndpoint: DaemonEndpointSchema.optional() });
export type NodeDaemonEndpoints = z.infer<typeof NodeDaemonEndpointsSchema>;

export const NodeSystemInfoSchema = z.looseObject({
  machineID: str,
  systemUUID: str,
  bootID: str,
  kernelVersion: str,
  osImage: str,
  containerRuntimeVersion: str,
  kubeletVersion: str,
  kubeProxyVersion: str.optional(),
  operatingSystem: str,
  architecture: str,
});
export type NodeSystemInfo = z.infer<typeof NodeSystemInfoSchema>;

// `names` has no omitempty upstream: an image without tags or digests comes back from the API server as null.
export const ContainerImageSchema = z.looseObject({ names: z.array(str).nullish(), sizeBytes: int.optional() });
export type ContainerImage = z.infer<typeof ContainerImageSchema>;

export const NodeRuntimeHandlerSchema = z.looseObject({
  name: str,
  features: z.looseObject({ recursiveReadOnlyMounts: bool.optional(), userNamespaces: bool.optional() }).optional(),
});
export type NodeRuntimeHandler = z.infer<typeof NodeRuntimeHandlerSchema>;

export const NodeStatusSchema = z.looseObject({
  capacity: ResourceListSchema.optional(),
  allocatable: ResourceListSchema.optional(),
  conditions: z.array(NodeConditionSchema).optional(),
  addresses: z.array(NodeAddressSchema).optional(),
  daemonEndpoints: NodeDaemonEndpointsSchema.optional(),
  nodeInfo: NodeSystemInfoSchema.optional(),
  images: z.array(ContainerImageSchema).optional(),
  volumesInUse: z.array(str).optional(),
  runtimeHandlers: z.array(NodeRuntimeHandlerSchema).optional(),
  features: z.looseObject({ supplementalGroupsPolicy: bool.optional() }).optional(),
});
export type NodeStatus = z.infer<typeof NodeStatusSchema>;

export const NodeSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: NodeMetaSchema,
  spec: NodeSpecSchema.optional(),
  status: NodeStatusSchema.optional(),
});
export type Node = z.infer<typeof NodeSchema>;
