// Pod and container status.
import { z } from 'zod';
import { ResourceRequirementsSchema } from './container.js';
import { ResourceListSchema } from './meta.js';
import { str, int, bool } from './primitives.js';

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
