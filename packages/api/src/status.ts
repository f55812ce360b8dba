import { z } from 'zod';

/**
 * The `metav1.StatusReason` values the kubelet branches on (apimachinery `pkg/apis/meta/v1/types.go`).
 * AlreadyExists and Conflict are both HTTP 409: only the reason tells them apart.
 */
export const StatusReason = {
  BadRequest: 'BadRequest',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Expired: 'Expired',
  Invalid: 'Invalid',
  TooManyRequests: 'TooManyRequests',
  Timeout: 'Timeout',
  ServerTimeout: 'ServerTimeout',
  InternalError: 'InternalError',
  ServiceUnavailable: 'ServiceUnavailable',
  MethodNotAllowed: 'MethodNotAllowed',
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

/** `metav1.Status`, the body of every failed API call and of a watch's ERROR event. */
export const StatusSchema = z
  .object({
    kind: z.literal('Status').optional(),
    apiVersion: z.string().optional(),
    status: z.string().optional(),
    message: z.string().optional(),
    reason: z.string().optional(),
    code: z.number().int().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();
export type Status = z.infer<typeof StatusSchema>;

/**
 * What a failed API call says, for code that knows only this package: any error with a numeric
 * `statusCode` and a string `reason` (the API client's errors have both) answers, others do not.
 */
export interface ApiStatusFailure {
  readonly statusCode: number;
  readonly reason: string;
}

export function apiStatusOf(err: unknown): ApiStatusFailure | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { statusCode, reason } = err as { statusCode?: unknown; reason?: unknown };
  if (typeof statusCode !== 'number') return undefined;
  return { statusCode, reason: typeof reason === 'string' ? reason : '' };
}

const hasReason = (err: unknown, reason: StatusReason, statusCode: number): boolean => {
  const status = apiStatusOf(err);
  if (status === undefined) return false;
  // A reason, when the server gave one, decides; a bare status code decides only when it is unambiguous.
  return status.reason === '' ? status.statusCode === statusCode && statusCode !== 409 : status.reason === reason;
};

export const isNotFound = (err: unknown): boolean => hasReason(err, StatusReason.NotFound, 404);
export const isAlreadyExists = (err: unknown): boolean => hasReason(err, StatusReason.AlreadyExists, 409);
export const isConflict = (err: unknown): boolean => hasReason(err, StatusReason.Conflict, 409);
export const isForbidden = (err: unknown): boolean => hasReason(err, StatusReason.Forbidden, 403);
/** A watch or list from a resourceVersion the server no longer has (410 Gone / reason Expired): relist. */
export const isResourceExpired = (err: unknown): boolean => {
  const status = apiStatusOf(err);
  return (
    status !== undefined && (status.statusCode === 410 || status.reason === StatusReason.Expired || status.reason === StatusReason.Gone)
  );
};
