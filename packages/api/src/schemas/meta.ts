// Object metadata and the small value types every object uses.
import { z } from 'zod';
import { quantitySchema } from '../quantity.js';
import { str, int, bool, stringMap } from './primitives.js';

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
