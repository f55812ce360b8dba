// The Pod and the PodList.
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { PodSpecSchema } from './pod-spec.js';
import { PodStatusSchema } from './status.js';
import { str } from './primitives.js';

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
