// The pod spec and what it holds besides containers and volumes.
import { z } from 'zod';
import { ContainerSchema, EphemeralContainerSchema, SELinuxOptionsSchema, SeccompProfileSchema } from './container.js';
import { ResourceListSchema } from './meta.js';
import { VolumeSchema } from './volumes.js';
import { str, int, bool, stringMap } from './primitives.js';

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
  /** Merge (default): the image's groups of the user are added; Strict: only those of the spec. */
  supplementalGroupsPolicy: z.enum(['Merge', 'Strict']).optional(),
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
  ephemeralContainers: z.array(EphemeralContainerSchema).optional(),
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
