// Selectors and env: what an env var or a downward API file refers to.
import { z } from 'zod';
import { quantitySchema } from '../quantity.js';
import { str, bool } from './primitives.js';

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
