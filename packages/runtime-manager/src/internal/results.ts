import { errorMessage } from '@kubelet-ts/common';
import type { PodSyncResult, SyncResult } from '@kubelet-ts/container-runtime';
import { CriError } from '@kubelet-ts/cri-client';
import { RuntimeManagerError, codeForReason } from '../errors.js';

type FailedResult = SyncResult & { reason: string; message: string };

/** The shortest back-off wait, when every failed result is a back-off with a known end. */
function retryAfter(results: SyncResult[]): number | undefined {
  const failures = results.filter((r) => r.reason !== undefined);
  if (failures.length === 0 || failures.some((r) => r.retryAfterMs === undefined)) return undefined;
  return Math.min(...failures.map((r) => r.retryAfterMs as number));
}

function failed(results: SyncResult[]): FailedResult | undefined {
  return results.find((r): r is FailedResult => r.reason !== undefined);
}

/** The error of the first failed result, if any: the caller retries the sync with back-off. */
export function resultError(results: SyncResult[]): Error | undefined {
  const first = failed(results);
  if (first === undefined) return undefined;
  return new RuntimeManagerError(codeForReason(first.reason), `${first.action} ${first.target}: ${first.message}`);
}

/** The results with their error and, when every failure is a back-off, the shortest wait. */
export function toPodSyncResult(results: SyncResult[]): PodSyncResult {
  const error = resultError(results);
  if (error === undefined) return { results };
  const wait = retryAfter(results);
  return wait === undefined ? { results, error } : { results, error, retryAfterMs: wait };
}

/** CRI message without the client's "Method: CODE:" prefix, as upstream shows grpc status messages. */
export function criMessage(err: unknown): string {
  if (err instanceof CriError && err.details !== '') return err.details;
  return errorMessage(err);
}
