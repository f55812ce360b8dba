// authentication.k8s.io/v1 TokenRequest: the body of POST …/serviceaccounts/<name>/token, the
// kubelet's way to get bound service account tokens for projected volumes.
import { z } from 'zod';
import { int, str } from './schemas/primitives.js';

/** The object a token is bound to (the kubelet binds to the pod: apiVersion v1, kind Pod, name, uid). */
export const BoundObjectReferenceSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  name: str.optional(),
  uid: str.optional(),
});
export type BoundObjectReference = z.infer<typeof BoundObjectReferenceSchema>;

export const TokenRequestSpecSchema = z.looseObject({
  /** Omitted: the API server's own audiences. */
  audiences: z.array(str).nullish(),
  expirationSeconds: int.optional(),
  boundObjectRef: BoundObjectReferenceSchema.optional(),
});
export type TokenRequestSpec = z.infer<typeof TokenRequestSpecSchema>;

export const TokenRequestStatusSchema = z.looseObject({
  token: str,
  /** metav1.Time (RFC 3339). */
  expirationTimestamp: str,
});
export type TokenRequestStatus = z.infer<typeof TokenRequestStatusSchema>;

export const TokenRequestSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: z.looseObject({ name: str.optional(), namespace: str.optional(), creationTimestamp: str.nullish() }).optional(),
  spec: TokenRequestSpecSchema,
  status: TokenRequestStatusSchema.optional(),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;
