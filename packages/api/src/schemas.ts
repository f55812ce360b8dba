// core/v1 objects as the kubelet needs them. Field names are exactly the Kubernetes JSON names.
// Objects are "loose": unknown fields are kept (upstream decoding of static pods is not strict),
// while the fields listed here are checked by type. Enumerated strings are validated by
// validatePod (with upstream's "Unsupported value" messages), not by the schema.
import { z } from 'zod';
import { quantitySchema } from './quantity.js';

const str = z.string();
const int = z.number().int();
const bool = z.boolean();
const stringMap = z.record(z.string(), z.string());

/** An int-or-string value (`intstr.IntOrString`), e.g. a port number or a named port. */
export const IntOrStringSchema = z.union([int, str]);
export type IntOrString = z.infer<typeof IntOrStringSchema>;

export const ResourceListSchema = z.record(z.string(), quantitySchema);
export type ResourceList = z.infer<typeof ResourceListSchema>;

export const OwnerReferenceSchema = z.looseObject({
  apiVersion: str,
  kind: str,
  name: str,
  uid: str,
  controller: bool.optional(),
  blockOwnerDeletion: bool.optional(),
});
export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;

export const ObjectMetaSchema = z.looseObject({
  name: str.default(''),
  generateName: str.optional(),
  namespace: str.default(''),
  uid: str.default(''),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  generation: int.optional(),
  resourceVersion: str.optional(),
  creationTimestamp: str.optional(),
  deletionTimestamp: str.optional(),
  deletionGracePeriodSeconds: int.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
  finalizers: z.array(str).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

// ---- selectors and env ----

export const ObjectFieldSelectorSchema = z.looseObject({ apiVersion: str.optional(), fieldPath: str });
export type ObjectFieldSelector = z.infer<typeof ObjectFieldSelectorSchema>;

export const ResourceFieldSelectorSchema = z.looseObject({
  containerName: str.optional(),
  resource: str,
  divisor: quantitySchema.optional(),
});
export type ResourceFieldSelector = z.infer<typeof ResourceFieldSelectorSchema>;

export const ConfigMapKeySelectorSchema = z.looseObject({ name: str.optional(), key: str, optional: bool.optional() });
export type ConfigMapKeySelector = z.infer<typeof ConfigMapKeySelectorSchema>;

export const SecretKeySelectorSchema = z.looseObject({ name: str.optional(), key: str, optional: bool.optional() });
export type SecretKeySelector = z.infer<typeof SecretKeySelectorSchema>;

export const EnvVarSourceSchema = z.looseObject({
  fieldRef: ObjectFieldSelectorSchema.optional(),
  resourceFieldRef: ResourceFieldSelectorSchema.optional(),
  configMapKeyRef: ConfigMapKeySelectorSchema.optional(),
  secretKeyRef: SecretKeySelectorSchema.optional(),
});
export type EnvVarSource = z.infer<typeof EnvVarSourceSchema>;

export const EnvVarSchema = z.looseObject({ name: str, value: str.optional(), valueFrom: EnvVarSourceSchema.optional() });
export type EnvVar = z.infer<typeof EnvVarSchema>;

export const EnvFromSourceSchema = z.looseObject({
  prefix: str.optional(),
  configMapRef: z.looseObject({ name: str.optional(), optional: bool.optional() }).optional(),
  secretRef: z.looseObject({ name: str.optional(), optional: bool.optional() }).optional(),
});
export type EnvFromSource = z.infer<typeof EnvFromSourceSchema>;

// ---- handlers, probes, lifecycle ----

export const ExecActionSchema = z.looseObject({ command: z.array(str).optional() });
export type ExecAction = z.infer<typeof ExecActionSchema>;

export const HTTPHeaderSchema = z.looseObject({ name: str, value: str });
export type HTTPHeader = z.infer<typeof HTTPHeaderSchema>;

export const HTTPGetActionSchema = z.looseObject({
  path: str.optional(),
  port: IntOrStringSchema,
  host: str.optional(),
  scheme: str.optional(),
  httpHeaders: z.array(HTTPHeaderSchema).optional(),
});
export type HTTPGetAction = z.infer<typeof HTTPGetActionSchema>;

export const TCPSocketActionSchema = z.looseObject({ port: IntOrStringSchema, host: str.optional() });
export type TCPSocketAction = z.infer<typeof TCPSocketActionSchema>;

export const GRPCActionSchema = z.looseObject({ port: int, service: str.optional() });
export type GRPCAction = z.infer<typeof GRPCActionSchema>;

export const SleepActionSchema = z.looseObject({ seconds: int });
export type SleepAction = z.infer<typeof SleepActionSchema>;

export const ProbeSchema = z.looseObject({
  exec: ExecActionSchema.optional(),
  httpGet: HTTPGetActionSchema.optional(),
  tcpSocket: TCPSocketActionSchema.optional(),
  grpc: GRPCActionSchema.optional(),
  initialDelaySeconds: int.optional(),
  timeoutSeconds: int.optional(),
  periodSeconds: int.optional(),
  successThreshold: int.optional(),
  failureThreshold: int.optional(),
  terminationGracePeriodSeconds: int.optional(),
});
export type Probe = z.infer<typeof ProbeSchema>;

export const LifecycleHandlerSchema = z.looseObject({
  exec: ExecActionSchema.optional(),
  httpGet: HTTPGetActionSchema.optional(),
  tcpSocket: TCPSocketActionSchema.optional(),
  sleep: SleepActionSchema.optional(),
});
export type LifecycleHandler = z.infer<typeof LifecycleHandlerSchema>;

export const LifecycleSchema = z.looseObject({
  postStart: LifecycleHandlerSchema.optional(),
  preStop: LifecycleHandlerSchema.optional(),
  stopSignal: str.optional(),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

// ---- container ----

export const ContainerPortSchema = z.looseObject({
  name: str.optional(),
  containerPort: int,
  hostPort: int.optional(),
  hostIP: str.optional(),
  protocol: str.optional(),
});
export type ContainerPort = z.infer<typeof ContainerPortSchema>;

export const ResourceClaimSchema = z.looseObject({ name: str, request: str.optional() });
export type ResourceClaim = z.infer<typeof ResourceClaimSchema>;

export const ResourceRequirementsSchema = z.looseObject({
  limits: ResourceListSchema.optional(),
  requests: ResourceListSchema.optional(),
  claims: z.array(ResourceClaimSchema).optional(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirementsSchema>;

export const VolumeMountSchema = z.looseObject({
  name: str,
  mountPath: str,
  subPath: str.optional(),
  subPathExpr: str.optional(),
  readOnly: bool.optional(),
  recursiveReadOnly: str.optional(),
  mountPropagation: str.optional(),
});
export type VolumeMount = z.infer<typeof VolumeMountSchema>;

export const VolumeDeviceSchema = z.looseObject({ name: str, devicePath: str });
export type VolumeDevice = z.infer<typeof VolumeDeviceSchema>;

export const CapabilitiesSchema = z.looseObject({ add: z.array(str).optional(), drop: z.array(str).optional() });
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

export const SeccompProfileSchema = z.looseObject({ type: str, localhostProfile: str.optional() });
export type SeccompProfile = z.infer<typeof SeccompProfileSchema>;

export const SELinuxOptionsSchema = z.looseObject({
  user: str.optional(),
  role: str.optional(),
  type: str.optional(),
  level: str.optional(),
});
export type SELinuxOptions = z.infer<typeof SELinuxOptionsSchema>;

export const SecurityContextSchema = z.looseObject({
  runAsUser: int.optional(),
  runAsGroup: int.optional(),
  runAsNonRoot: bool.optional(),
  privileged: bool.optional(),
  capabilities: CapabilitiesSchema.optional(),
  readOnlyRootFilesystem: bool.optional(),
  allowPrivilegeEscalation: bool.optional(),
  seccompProfile: SeccompProfileSchema.optional(),
  seLinuxOptions: SELinuxOptionsSchema.optional(),
  procMount: str.optional(),
});
export type SecurityContext = z.infer<typeof SecurityContextSchema>;

export const ContainerSchema = z.looseObject({
  name: str,
  image: str.default(''),
  command: z.array(str).optional(),
  args: z.array(str).optional(),
  workingDir: str.optional(),
  ports: z.array(ContainerPortSchema).optional(),
  env: z.array(EnvVarSchema).optional(),
  envFrom: z.array(EnvFromSourceSchema).optional(),
  resources: ResourceRequirementsSchema.optional(),
  volumeMounts: z.array(VolumeMountSchema).optional(),
  volumeDevices: z.array(VolumeDeviceSchema).optional(),
  livenessProbe: ProbeSchema.optional(),
  readinessProbe: ProbeSchema.optional(),
  startupProbe: ProbeSchema.optional(),
  lifecycle: LifecycleSchema.optional(),
  terminationMessagePath: str.optional(),
  terminationMessagePolicy: str.optional(),
  imagePullPolicy: str.optional(),
  securityContext: SecurityContextSchema.optional(),
  stdin: bool.optional(),
  stdinOnce: bool.optional(),
  tty: bool.optional(),
  /** Only on init containers: "Always" makes it a sidecar (restartable init container). */
  restartPolicy: str.optional(),
});
export type Container = z.infer<typeof ContainerSchema>;

// ---- volumes ----

export const KeyToPathSchema = z.looseObject({ key: str, path: str, mode: int.optional() });
export type KeyToPath = z.infer<typeof KeyToPathSchema>;

export const EmptyDirVolumeSourceSchema = z.looseObject({ medium: str.optional(), sizeLimit: quantitySchema.optional() });
export const HostPathVolumeSourceSchema = z.looseObject({ path: str, type: str.optional() });
export const ConfigMapVolumeSourceSchema = z.looseObject({
  name: str.optional(),
  items: z.array(KeyToPathSchema).optional(),
  defaultMode: int.optional(),
  optional: bool.optional(),
});
export const SecretVolumeSourceSchema = z.looseObject({
  secretName: str.optional(),
  items: z.array(KeyToPathSchema).optional(),
  defaultMode: int.optional(),
  optional: bool.optional(),
});
export const DownwardAPIVolumeFileSchema = z.looseObject({
  path: str,
  fieldRef: ObjectFieldSelectorSchema.optional(),
  resourceFieldRef: ResourceFieldSelectorSchema.optional(),
  mode: int.optional(),
});
export const DownwardAPIVolumeSourceSchema = z.looseObject({
  items: z.array(DownwardAPIVolumeFileSchema).optional(),
  defaultMode: int.optional(),
});
export const ProjectedVolumeSourceSchema = z.looseObject({
  sources: z.array(z.looseObject({})).optional(),
  defaultMode: int.optional(),
});
export const CSIVolumeSourceSchema = z.looseObject({
  driver: str,
  readOnly: bool.optional(),
  fsType: str.optional(),
  volumeAttributes: stringMap.optional(),
  nodePublishSecretRef: z.looseObject({ name: str.optional() }).optional(),
});
export const PersistentVolumeClaimVolumeSourceSchema = z.looseObject({ claimName: str, readOnly: bool.optional() });

export type EmptyDirVolumeSource = z.infer<typeof EmptyDirVolumeSourceSchema>;
export type HostPathVolumeSource = z.infer<typeof HostPathVolumeSourceSchema>;
export type ConfigMapVolumeSource = z.infer<typeof ConfigMapVolumeSourceSchema>;
export type SecretVolumeSource = z.infer<typeof SecretVolumeSourceSchema>;
export type DownwardAPIVolumeFile = z.infer<typeof DownwardAPIVolumeFileSchema>;
export type DownwardAPIVolumeSource = z.infer<typeof DownwardAPIVolumeSourceSchema>;
export type ProjectedVolumeSource = z.infer<typeof ProjectedVolumeSourceSchema>;
export type CSIVolumeSource = z.infer<typeof CSIVolumeSourceSchema>;
export type PersistentVolumeClaimVolumeSource = z.infer<typeof PersistentVolumeClaimVolumeSourceSchema>;

/** Volume source keys the kubelet knows by name; others (nfs, iscsi, ephemeral, image…) pass through loosely. */
export const VOLUME_SOURCE_KEYS = [
  'emptyDir',
  'hostPath',
  'configMap',
  'secret',
  'downwardAPI',
  'projected',
  'csi',
  'persistentVolumeClaim',
  'ephemeral',
  'image',
  'nfs',
  'iscsi',
  'rbd',
  'cephfs',
  'fc',
  'flexVolume',
  'local',
  'gitRepo',
  'glusterfs',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'azureDisk',
  'azureFile',
  'vsphereVolume',
  'cinder',
  'flocker',
  'quobyte',
  'portworxVolume',
  'photonPersistentDisk',
  'scaleIO',
  'storageos',
] as const;

export const VolumeSchema = z.looseObject({
  name: str,
  emptyDir: EmptyDirVolumeSourceSchema.optional(),
  hostPath: HostPathVolumeSourceSchema.optional(),
  configMap: ConfigMapVolumeSourceSchema.optional(),
  secret: SecretVolumeSourceSchema.optional(),
  downwardAPI: DownwardAPIVolumeSourceSchema.optional(),
  projected: ProjectedVolumeSourceSchema.optional(),
  csi: CSIVolumeSourceSchema.optional(),
  persistentVolumeClaim: PersistentVolumeClaimVolumeSourceSchema.optional(),
  ephemeral: z.looseObject({}).optional(),
  image: z.looseObject({ reference: str.optional(), pullPolicy: str.optional() }).optional(),
});
export type Volume = z.infer<typeof VolumeSchema>;

// ---- pod spec ----

export const TolerationSchema = z.looseObject({
  key: str.optional(),
  operator: str.optional(),
  value: str.optional(),
  effect: str.optional(),
  tolerationSeconds: int.optional(),
});
export type Toleration = z.infer<typeof TolerationSchema>;

export const PodDNSConfigSchema = z.looseObject({
  nameservers: z.array(str).optional(),
  searches: z.array(str).optional(),
  options: z.array(z.looseObject({ name: str.optional(), value: str.optional() })).optional(),
});
export type PodDNSConfig = z.infer<typeof PodDNSConfigSchema>;

export const HostAliasSchema = z.looseObject({ ip: str, hostnames: z.array(str).optional() });
export type HostAlias = z.infer<typeof HostAliasSchema>;

export const PodSecurityContextSchema = z.looseObject({
  runAsUser: int.optional(),
  runAsGroup: int.optional(),
  runAsNonRoot: bool.optional(),
  fsGroup: int.optional(),
  fsGroupChangePolicy: str.optional(),
  supplementalGroups: z.array(int).optional(),
  seccompProfile: SeccompProfileSchema.optional(),
  seLinuxOptions: SELinuxOptionsSchema.optional(),
  sysctls: z.array(z.looseObject({ name: str, value: str })).optional(),
});
export type PodSecurityContext = z.infer<typeof PodSecurityContextSchema>;

export const PodReadinessGateSchema = z.looseObject({ conditionType: str });
export type PodReadinessGate = z.infer<typeof PodReadinessGateSchema>;

export const PodSpecSchema = z.looseObject({
  containers: z.array(ContainerSchema).default([]),
  initContainers: z.array(ContainerSchema).optional(),
  ephemeralContainers: z.array(z.looseObject({ name: str })).optional(),
  volumes: z.array(VolumeSchema).optional(),
  restartPolicy: str.optional(),
  terminationGracePeriodSeconds: int.optional(),
  activeDeadlineSeconds: int.optional(),
  dnsPolicy: str.optional(),
  nodeSelector: stringMap.optional(),
  nodeName: str.optional(),
  serviceAccountName: str.optional(),
  automountServiceAccountToken: bool.optional(),
  hostNetwork: bool.optional(),
  hostPID: bool.optional(),
  hostIPC: bool.optional(),
  hostUsers: bool.optional(),
  shareProcessNamespace: bool.optional(),
  securityContext: PodSecurityContextSchema.optional(),
  imagePullSecrets: z.array(z.looseObject({ name: str.optional() })).optional(),
  hostname: str.optional(),
  subdomain: str.optional(),
  affinity: z.looseObject({}).optional(),
  schedulerName: str.optional(),
  tolerations: z.array(TolerationSchema).optional(),
  hostAliases: z.array(HostAliasSchema).optional(),
  priorityClassName: str.optional(),
  priority: int.optional(),
  dnsConfig: PodDNSConfigSchema.optional(),
  readinessGates: z.array(PodReadinessGateSchema).optional(),
  runtimeClassName: str.optional(),
  enableServiceLinks: bool.optional(),
  preemptionPolicy: str.optional(),
  overhead: ResourceListSchema.optional(),
  os: z.looseObject({ name: str }).optional(),
});
export type PodSpec = z.infer<typeof PodSpecSchema>;

// ---- status ----

export const PodConditionSchema = z.looseObject({
  type: str,
  status: str,
  observedGeneration: int.optional(),
  lastProbeTime: str.optional(),
  lastTransitionTime: str.optional(),
  reason: str.optional(),
  message: str.optional(),
});
export type PodCondition = z.infer<typeof PodConditionSchema>;

export const ContainerStateWaitingSchema = z.looseObject({ reason: str.optional(), message: str.optional() });
export const ContainerStateRunningSchema = z.looseObject({ startedAt: str.optional() });
export const ContainerStateTerminatedSchema = z.looseObject({
  exitCode: int,
  signal: int.optional(),
  reason: str.optional(),
  message: str.optional(),
  startedAt: str.optional(),
  finishedAt: str.optional(),
  containerID: str.optional(),
});
export type ContainerStateWaiting = z.infer<typeof ContainerStateWaitingSchema>;
export type ContainerStateRunning = z.infer<typeof ContainerStateRunningSchema>;
export type ContainerStateTerminated = z.infer<typeof ContainerStateTerminatedSchema>;

export const ContainerStateSchema = z.looseObject({
  waiting: ContainerStateWaitingSchema.optional(),
  running: ContainerStateRunningSchema.optional(),
  terminated: ContainerStateTerminatedSchema.optional(),
});
export type ContainerState = z.infer<typeof ContainerStateSchema>;

export const ContainerStatusSchema = z.looseObject({
  name: str,
  state: ContainerStateSchema.optional(),
  lastState: ContainerStateSchema.optional(),
  ready: bool,
  restartCount: int,
  image: str,
  imageID: str,
  containerID: str.optional(),
  started: bool.optional(),
  allocatedResources: ResourceListSchema.optional(),
  resources: ResourceRequirementsSchema.optional(),
});
export type ContainerStatus = z.infer<typeof ContainerStatusSchema>;

export const PodIPSchema = z.looseObject({ ip: str });
export type PodIP = z.infer<typeof PodIPSchema>;

export const PodStatusSchema = z.looseObject({
  observedGeneration: int.optional(),
  phase: str.optional(),
  conditions: z.array(PodConditionSchema).optional(),
  message: str.optional(),
  reason: str.optional(),
  nominatedNodeName: str.optional(),
  hostIP: str.optional(),
  hostIPs: z.array(PodIPSchema).optional(),
  podIP: str.optional(),
  podIPs: z.array(PodIPSchema).optional(),
  startTime: str.optional(),
  initContainerStatuses: z.array(ContainerStatusSchema).optional(),
  containerStatuses: z.array(ContainerStatusSchema).optional(),
  ephemeralContainerStatuses: z.array(ContainerStatusSchema).optional(),
  qosClass: str.optional(),
});
export type PodStatus = z.infer<typeof PodStatusSchema>;

export const PodSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: ObjectMetaSchema.default({ name: '', namespace: '', uid: '' }),
  spec: PodSpecSchema.default({ containers: [] }),
  status: PodStatusSchema.optional(),
});
export type Pod = z.infer<typeof PodSchema>;

export const PodListSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: z.looseObject({ resourceVersion: str.optional(), continue: str.optional() }).optional(),
  items: z.array(PodSchema).default([]),
});
export type PodList = z.infer<typeof PodListSchema>;
