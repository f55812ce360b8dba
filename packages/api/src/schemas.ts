// core/v1 objects as the kubelet needs them. Field names are exactly the Kubernetes JSON names.
// Objects are "loose": unknown fields are kept (upstream decoding of static pods is not strict),
// while the fields listed here are checked by type. Enumerated strings are validated by
// validatePod (with upstream's "Unsupported value" messages), not by the schema.
// One file per kind of object under schemas/; this file is their one entry point.
export { IntOrStringSchema, ResourceListSchema, OwnerReferenceSchema, ObjectMetaSchema } from './schemas/meta.js';
export type { IntOrString, ResourceList, OwnerReference, ObjectMeta } from './schemas/meta.js';
export {
  ObjectFieldSelectorSchema,
  ResourceFieldSelectorSchema,
  ConfigMapKeySelectorSchema,
  SecretKeySelectorSchema,
  EnvVarSourceSchema,
  EnvVarSchema,
  EnvFromSourceSchema,
} from './schemas/env.js';
export type {
  ObjectFieldSelector,
  ResourceFieldSelector,
  ConfigMapKeySelector,
  SecretKeySelector,
  EnvVarSource,
  EnvVar,
  EnvFromSource,
} from './schemas/env.js';
export {
  ExecActionSchema,
  HTTPHeaderSchema,
  HTTPGetActionSchema,
  TCPSocketActionSchema,
  GRPCActionSchema,
  SleepActionSchema,
  ProbeSchema,
  LifecycleHandlerSchema,
  LifecycleSchema,
} from './schemas/probes.js';
export type {
  ExecAction,
  HTTPHeader,
  HTTPGetAction,
  TCPSocketAction,
  GRPCAction,
  SleepAction,
  Probe,
  LifecycleHandler,
  Lifecycle,
} from './schemas/probes.js';
export {
  ContainerPortSchema,
  ResourceClaimSchema,
  ResourceRequirementsSchema,
  VolumeMountSchema,
  VolumeDeviceSchema,
  CapabilitiesSchema,
  SeccompProfileSchema,
  SELinuxOptionsSchema,
  SecurityContextSchema,
  ContainerSchema,
  EphemeralContainerSchema,
} from './schemas/container.js';
export type {
  ContainerPort,
  ResourceClaim,
  ResourceRequirements,
  VolumeMount,
  VolumeDevice,
  Capabilities,
  SeccompProfile,
  SELinuxOptions,
  SecurityContext,
  Container,
  EphemeralContainer,
} from './schemas/container.js';
export {
  KeyToPathSchema,
  EmptyDirVolumeSourceSchema,
  HostPathVolumeSourceSchema,
  ConfigMapVolumeSourceSchema,
  SecretVolumeSourceSchema,
  DownwardAPIVolumeFileSchema,
  DownwardAPIVolumeSourceSchema,
  ProjectedVolumeSourceSchema,
  CSIVolumeSourceSchema,
  PersistentVolumeClaimVolumeSourceSchema,
  VOLUME_SOURCE_KEYS,
  VolumeSchema,
} from './schemas/volumes.js';
export type {
  KeyToPath,
  EmptyDirVolumeSource,
  HostPathVolumeSource,
  ConfigMapVolumeSource,
  SecretVolumeSource,
  DownwardAPIVolumeFile,
  DownwardAPIVolumeSource,
  ProjectedVolumeSource,
  CSIVolumeSource,
  PersistentVolumeClaimVolumeSource,
  Volume,
} from './schemas/volumes.js';
export {
  TolerationSchema,
  PodDNSConfigSchema,
  HostAliasSchema,
  PodSecurityContextSchema,
  PodReadinessGateSchema,
  PodSpecSchema,
} from './schemas/pod-spec.js';
export type { Toleration, PodDNSConfig, HostAlias, PodSecurityContext, PodReadinessGate, PodSpec } from './schemas/pod-spec.js';
export {
  PodConditionSchema,
  ContainerStateWaitingSchema,
  ContainerStateRunningSchema,
  ContainerStateTerminatedSchema,
  ContainerStateSchema,
  ContainerStatusSchema,
  PodIPSchema,
  PodStatusSchema,
} from './schemas/status.js';
export type {
  PodCondition,
  ContainerStateWaiting,
  ContainerStateRunning,
  ContainerStateTerminated,
  ContainerState,
  ContainerStatus,
  PodIP,
  PodStatus,
} from './schemas/status.js';
export { PodSchema, PodListSchema } from './schemas/pod.js';
export type { Pod, PodList } from './schemas/pod.js';
