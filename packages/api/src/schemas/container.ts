// A container: ports, resources, mounts, security context.
import { z } from 'zod';
import { EnvFromSourceSchema, EnvVarSchema } from './env.js';
import { ResourceListSchema } from './meta.js';
import { LifecycleSchema, ProbeSchema } from './probes.js';
import { str, int, bool } from './primitives.js';

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

/**
 * An ephemeral container (core/v1 EphemeralContainer): a container's fields plus the container
 * whose namespaces it targets. Which fields may be set is validatePod's business, as upstream.
 */
export const EphemeralContainerSchema = ContainerSchema.extend({
  /** A container of the pod (regular or init) whose PID namespace the ephemeral container joins. */
  targetContainerName: str.optional(),
});
export type EphemeralContainer = z.infer<typeof EphemeralContainerSchema>;
