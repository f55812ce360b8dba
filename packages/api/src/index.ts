export { ApiError } from './errors.js';
export type { ApiErrorCode } from './errors.js';

export { parseQuantity, quantityMilliValue, quantityValue, isValidQuantity, quantitySchema, QUANTITY_FORMAT } from './quantity.js';
export type { Quantity } from './quantity.js';

export {
  IntOrStringSchema,
  ResourceListSchema,
  OwnerReferenceSchema,
  ObjectMetaSchema,
  ObjectFieldSelectorSchema,
  ResourceFieldSelectorSchema,
  ConfigMapKeySelectorSchema,
  SecretKeySelectorSchema,
  EnvVarSourceSchema,
  EnvVarSchema,
  EnvFromSourceSchema,
  ExecActionSchema,
  HTTPHeaderSchema,
  HTTPGetActionSchema,
  TCPSocketActionSchema,
  GRPCActionSchema,
  SleepActionSchema,
  ProbeSchema,
  LifecycleHandlerSchema,
  LifecycleSchema,
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
  TolerationSchema,
  PodDNSConfigSchema,
  HostAliasSchema,
  PodSecurityContextSchema,
  PodReadinessGateSchema,
  PodSpecSchema,
  PodConditionSchema,
  ContainerStateWaitingSchema,
  ContainerStateRunningSchema,
  ContainerStateTerminatedSchema,
  ContainerStateSchema,
  ContainerStatusSchema,
  PodIPSchema,
  PodStatusSchema,
  PodSchema,
  PodListSchema,
} from './schemas.js';
export type {
  IntOrString,
  ResourceList,
  OwnerReference,
  ObjectMeta,
  ObjectFieldSelector,
  ResourceFieldSelector,
  ConfigMapKeySelector,
  SecretKeySelector,
  EnvVarSource,
  EnvVar,
  EnvFromSource,
  ExecAction,
  HTTPHeader,
  HTTPGetAction,
  TCPSocketAction,
  GRPCAction,
  SleepAction,
  Probe,
  LifecycleHandler,
  Lifecycle,
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
  Toleration,
  PodDNSConfig,
  HostAlias,
  PodSecurityContext,
  PodReadinessGate,
  PodSpec,
  PodCondition,
  ContainerStateWaiting,
  ContainerStateRunning,
  ContainerStateTerminated,
  ContainerState,
  ContainerStatus,
  PodIP,
  PodStatus,
  Pod,
  PodList,
} from './schemas.js';

export {
  ContainerImageSchema,
  DaemonEndpointSchema,
  NodeAddressSchema,
  NodeConditionSchema,
  NodeDaemonEndpointsSchema,
  NodeMetaSchema,
  NodeRuntimeHandlerSchema,
  NodeSchema,
  NodeSpecSchema,
  NodeStatusSchema,
  NodeSystemInfoSchema,
  TaintSchema,
} from './node.js';
export type {
  ContainerImage,
  DaemonEndpoint,
  Node,
  NodeAddress,
  NodeCondition,
  NodeDaemonEndpoints,
  NodeMeta,
  NodeRuntimeHandler,
  NodeSpec,
  NodeStatus,
  NodeSystemInfo,
  Taint,
} from './node.js';

export { containerResourceValue, nodeResourceList } from './node-resources.js';
export { hasPodLevelLimit, isSupportedPodLevelResource, podLimits, podRequests, resourceAmounts } from './pod-resources.js';
export type { OnInvalidQuantity, PodResourcesOptions, ResourceAmounts } from './pod-resources.js';
export type { NodeResources } from './node-resources.js';

export { applyPodDefaults, applyPodObjectDefaults, defaultImagePullPolicy } from './defaults.js';
export { isUntaggedImage, parseImageReference } from './image.js';
export type { ImageReference } from './image.js';
export { validatePod } from './validation.js';
export type { ValidationIssue } from './validation.js';
export { parsePod, formatIssue, formatPath, stripNulls, findTooDeep, flowNestingExceeds, MAX_NESTING_DEPTH } from './parse.js';
export type { ParsePodResult, ParsePodOptions, PodIssue } from './parse.js';

export {
  podFullName,
  isRestartableInitContainer,
  getPodSource,
  isStaticPod,
  isMirrorPod,
  resolveContainerPort,
  getPodQOSClass,
  computePodQOSClass,
} from './helpers.js';
export {
  SYSTEM_CRITICAL_PRIORITY,
  SYSTEM_PRIORITY_CLASSES,
  podPriority,
  isCriticalPodBasedOnPriority,
  isCriticalPod,
  preemptable,
} from './priority.js';

export {
  PodPhase,
  PodConditionType,
  ConditionStatus,
  PodQOSClass,
  RestartPolicy,
  PullPolicy,
  DNSPolicy,
  Protocol,
  TerminationMessagePolicy,
  URIScheme,
  MountPropagationMode,
  TaintEffect,
  TolerationOperator,
  PodSourceName,
  ConfigSourceAnnotationKey,
  ConfigHashAnnotationKey,
  ConfigFirstSeenAnnotationKey,
  ConfigMirrorAnnotationKey,
  DEFAULT_NAMESPACE,
  DEFAULT_SCHEDULER_NAME,
  DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
  DEFAULT_TERMINATION_MESSAGE_PATH,
  DEFAULT_VOLUME_MODE,
} from './constants.js';
export { Reason, EventReason } from './reasons.js';
export { expandVariables, expandContainerCommandAndArgs, expandContainerCommandOnlyStatic } from './expansion.js';
export {
  StatusReason,
  StatusSchema,
  apiStatusOf,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isResourceExpired,
} from './status.js';
export type { Status, ApiStatusFailure } from './status.js';
export { createTwoWayMergePatch, nodeStatusPatch, STRATEGIC_MERGE_PATCH_CONTENT_TYPE } from './strategic-merge-patch.js';
export type { PatchMeta, StrategicMergePatch } from './strategic-merge-patch.js';
export { NODE_PATCH_META, OBJECT_PATCH_META, POD_PATCH_META } from './strategic-merge-patch-meta.js';
export { EventSchema, EventSourceSchema, ObjectReferenceSchema, generateEventName } from './event.js';
export type { Event, EventSource } from './event.js';
export { formatTime, formatMicroTime, formatRfc3339Nano } from './time.js';
export { LeaseMetaSchema, LeaseSchema, LeaseSpecSchema, NODE_LEASE_NAMESPACE } from './lease.js';
export type { Lease, LeaseMeta, LeaseSpec } from './lease.js';
export { ConfigMapSchema, SecretSchema, SECRET_TYPE_OPAQUE, decodeConfigMap, decodeSecret } from './config-objects.js';
export { CLUSTER_IP_NONE, isServiceIPSet, ServicePortSchema, ServiceSchema } from './service.js';
export type { Service, ServicePort } from './service.js';
export type { ConfigMap, ConfigMapObject, ObjectSource, Secret, SecretObject } from './config-objects.js';
export { BoundObjectReferenceSchema, TokenRequestSchema, TokenRequestSpecSchema, TokenRequestStatusSchema } from './token-request.js';
export type { BoundObjectReference, TokenRequest, TokenRequestSpec, TokenRequestStatus } from './token-request.js';
