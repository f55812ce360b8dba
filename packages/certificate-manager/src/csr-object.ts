import { z } from 'zod';
import { ObjectMetaSchema, formatPath, stripNulls } from '@kubelet-ts/api';
import { CertificateError } from './errors.js';

/** `certificates.k8s.io/v1` CertificateSigningRequestCondition. */
export const CsrConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string().default(''),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastUpdateTime: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type CsrCondition = z.infer<typeof CsrConditionSchema>;

/** base64 as encoding/json writes a []byte. */
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');

export const CsrSpecSchema = z.looseObject({
  /** base64 of the PEM `CERTIFICATE REQUEST` block. */
  request: base64,
  signerName: z.string(),
  expirationSeconds: z.number().int().optional(),
  usages: z.array(z.string()).optional(),
  username: z.string().optional(),
  uid: z.string().optional(),
  groups: z.array(z.string()).optional(),
  extra: z.record(z.string(), z.array(z.string())).optional(),
});

export const CsrStatusSchema = z.looseObject({
  conditions: z.array(CsrConditionSchema).optional(),
  /** base64 of the issued PEM chain. */
  certificate: base64.optional(),
});

/** A `certificates.k8s.io/v1` CertificateSigningRequest as the API returns it. */
export const CertificateSigningRequestSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaSchema,
  spec: CsrSpecSchema,
  status: CsrStatusSchema.optional(),
});
export type CertificateSigningRequest = z.infer<typeof CertificateSigningRequestSchema>;

/** The body of a create: what the kubelet sends (the API server fills in username, groups, uid). */
export interface CertificateSigningRequestBody {
  apiVersion: 'certificates.k8s.io/v1';
  kind: 'CertificateSigningRequest';
  metadata: { name: string } | { generateName: string };
  spec: { request: string; signerName: string; usages: string[]; expirationSeconds?: number };
}

/**
 * Validates an object from the API (`source` names where it came from: "create", "watch csr-abc").
 * Throws INVALID_OBJECT naming the source, the field and the reason.
 */
export function parseCertificateSigningRequest(input: unknown, source: string): CertificateSigningRequest {
  const result = CertificateSigningRequestSchema.safeParse(stripNulls(input));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined ? '' : formatPath(issue.path);
  throw new CertificateError(
    'INVALID_OBJECT',
    `${source}: invalid CertificateSigningRequest: ${path === '' ? '' : `${path}: `}${issue?.message ?? 'invalid'}`,
  );
}
