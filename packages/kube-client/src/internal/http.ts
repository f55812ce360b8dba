// Pieces of the REST client without state: query encoding, error bodies, response decoding.
import { StatusReason, StatusSchema, formatPath, stripNulls } from '@kubelet-ts/api';
import type { Status } from '@kubelet-ts/api';
import type { z } from 'zod';
import { KubeClientError } from '../errors.js';
import type { Query } from '../types.js';

/** `?a=1&b=2` in sorted key order (client-go's url.Values.Encode), or '' for no parameters. */
export function encodeQuery(query: Query | undefined): string {
  if (query === undefined) return '';
  const pairs = Object.entries(query)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** The reason client-go gives a failed response whose body is not a Status (errors.NewGenericServerResponse). */
function reasonForCode(statusCode: number): string {
  switch (statusCode) {
    case 400:
      return StatusReason.BadRequest;
    case 401:
      return StatusReason.Unauthorized;
    case 403:
      return StatusReason.Forbidden;
    case 404:
      return StatusReason.NotFound;
    case 405:
      return StatusReason.MethodNotAllowed;
    case 409:
      return StatusReason.Conflict;
    case 410:
      return StatusReason.Gone;
    case 422:
      return StatusReason.Invalid;
    case 429:
      return StatusReason.TooManyRequests;
    case 500:
      return StatusReason.InternalError;
    case 503:
      return StatusReason.ServiceUnavailable;
    case 504:
      return StatusReason.ServerTimeout;
    default:
      return '';
  }
}

/** An API_STATUS error from a failed response (or a watch ERROR event's object). */
export function statusError(what: string, statusCode: number, body: unknown, retryAfterSeconds?: number): KubeClientError {
  const parsed = StatusSchema.safeParse(body);
  const status: Status | undefined =
    parsed.success && (parsed.data.kind === 'Status' || parsed.data.reason !== undefined) ? parsed.data : undefined;
  const code = status?.code ?? statusCode;
  const reason = status?.reason ?? reasonForCode(code);
  const text = status?.message ?? (typeof body === 'string' ? body.trim().slice(0, 500) : '');
  return new KubeClientError('API_STATUS', `${what}: ${text === '' ? 'failed' : text} (${code}${reason === '' ? '' : ` ${reason}`})`, {
    statusCode: code,
    reason,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

/** Seconds of a Retry-After header given in seconds (the only form the API server sends). */
export function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** Parses a JSON body; non-JSON text is returned as a string (for error messages). */
export function parseBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Validates a response body with the caller's schema: DECODE naming the request, field and reason. */
export function decodeWith<T>(what: string, schema: z.ZodType<T>, body: unknown): T {
  // Go decodes null as not set: so do we, before the type check.
  const result = schema.safeParse(stripNulls(body));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue === undefined ? '' : formatPath(issue.path);
  throw new KubeClientError('DECODE', `${what}: invalid response${field === '' ? '' : ` at ${field}`}: ${issue?.message ?? 'invalid'}`, {
    cause: result.error,
  });
}
