// Handlers, probes and lifecycle hooks.
import { z } from 'zod';
import { IntOrStringSchema } from './meta.js';
import { str, int } from './primitives.js';

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
