// v1.PodLogOptions (the query of /containerLogs and `kubectl logs` flags) and the reader's resolved form
// (pkg/kubelet/kuberuntime/logs NewLogOptions).
import { z } from 'zod';
import { ContainerLogsError } from './errors.js';
import { parseTimestampNs } from '@kubelet-ts/cri-client';

/** Which streams to return (v1.PodLogOptions `stream`, PodLogsQuerySplitStreams). */
export type LogStreamSelection = 'All' | 'Stdout' | 'Stderr';

/** v1.PodLogOptions, the fields the kubelet reads. */
export interface PodLogOptions {
  container?: string;
  follow?: boolean;
  previous?: boolean;
  sinceSeconds?: number;
  /** RFC3339 time (or a Date). */
  sinceTime?: string | Date;
  timestamps?: boolean;
  tailLines?: number;
  limitBytes?: number;
  stream?: LogStreamSelection;
}

const int = z.number().int();

/** zod schema of PodLogOptions with upstream's validation (ValidatePodLogOptions). */
export const podLogOptionsSchema = z
  .object({
    container: z.string().optional(),
    follow: z.boolean().optional(),
    previous: z.boolean().optional(),
    sinceSeconds: int.min(1, 'must be greater than 0').optional(),
    sinceTime: z.union([z.date(), z.string().refine((s) => parseTimestampNs(s) !== undefined, 'must be an RFC3339 time')]).optional(),
    timestamps: z.boolean().optional(),
    tailLines: int.min(0, 'must be greater than or equal to 0').optional(),
    limitBytes: int.min(1, 'must be greater than 0').optional(),
    stream: z.enum(['All', 'Stdout', 'Stderr']).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['sinceSeconds'], message: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
    }
    if (o.tailLines !== undefined && o.stream !== undefined && o.stream !== 'All') {
      ctx.addIssue({ code: 'custom', path: ['tailLines'], message: '`tailLines` and specific `stream` are mutually exclusive for now' });
    }
  });

/**
 * Validates untrusted log options (an HTTP query turned into an object, CLI flags).
 * @throws ContainerLogsError INVALID_OPTIONS naming the field and the reason.
 */
export function parsePodLogOptions(input: unknown): PodLogOptions {
  const result = podLogOptionsSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
    throw new ContainerLogsError('INVALID_OPTIONS', `invalid log options: ${issues}`, { cause: result.error });
  }
  return result.data as PodLogOptions;
}

/** Go's strconv.ParseBool, which the API's query parameter codec uses. */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

const QUERY_BOOLEANS = new Set(['follow', 'previous', 'timestamps']);
const QUERY_INTEGERS = new Set(['sinceSeconds', 'tailLines', 'limitBytes']);
const QUERY_STRINGS = new Set(['container', 'sinceTime', 'stream']);

/**
 * v1.PodLogOptions from the query of `/containerLogs/…` (the API server forwards `kubectl logs`
 * flags so): booleans as Go parses them, integers, strings; the last value of a repeated parameter
 * wins. Unknown parameters are ignored, as the query codec does.
 * @throws ContainerLogsError INVALID_QUERY naming a parameter that does not decode; INVALID_OPTIONS from parsePodLogOptions's checks.
 */
export function podLogOptionsFromQuery(query: URLSearchParams): PodLogOptions {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (QUERY_BOOLEANS.has(key)) {
      if (!GO_TRUE.has(value) && !GO_FALSE.has(value)) {
        throw new ContainerLogsError('INVALID_QUERY', `invalid log options: ${key}: ${JSON.stringify(value)} is not a boolean`);
      }
      raw[key] = GO_TRUE.has(value);
    } else if (QUERY_INTEGERS.has(key)) {
      if (!/^[+-]?\d{1,15}$/.test(value)) {
        throw new ContainerLogsError('INVALID_QUERY', `invalid log options: ${key}: ${JSON.stringify(value)} is not an integer`);
      }
      raw[key] = Number(value);
    } else if (QUERY_STRINGS.has(key)) {
      raw[key] = value;
    }
  }
  return parsePodLogOptions(raw);
}

/** The reader's options: -1 means "all" for tail and limitBytes. */
export interface LogOptions {
  tail: number;
  limitBytes: number;
  /** Lines older than this (ns since the epoch) are skipped. */
  sinceNs: bigint | undefined;
  follow: boolean;
  timestamps: boolean;
  stream: LogStreamSelection;
}

/** PodLogOptions → LogOptions at time `nowMs` (sinceSeconds is relative to it; the later of the two since bounds wins). */
export function newLogOptions(api: PodLogOptions, nowMs: number): LogOptions {
  let sinceNs: bigint | undefined;
  if (api.sinceSeconds !== undefined) sinceNs = BigInt(nowMs - api.sinceSeconds * 1000) * 1_000_000n;
  if (api.sinceTime !== undefined) {
    const t = api.sinceTime instanceof Date ? BigInt(api.sinceTime.getTime()) * 1_000_000n : parseTimestampNs(api.sinceTime);
    if (t !== undefined && (sinceNs === undefined || t > sinceNs)) sinceNs = t;
  }
  return {
    tail: api.tailLines ?? -1,
    limitBytes: api.limitBytes ?? -1,
    sinceNs,
    follow: api.follow === true,
    timestamps: api.timestamps === true,
    stream: api.stream ?? 'All',
  };
}
