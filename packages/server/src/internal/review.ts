// One webhook review (TokenReview, SubjectAccessReview): the call under a deadline, its reply validated.
import type { Clock } from '@kubelet-ts/common';
import type { z } from 'zod';

export type ReviewOutcome<T> =
  { ok: true; reply: T } | { ok: false; stage: 'call'; err: unknown } | { ok: false; stage: 'reply'; where: string };

/** Calls `call` with a signal aborted after `timeoutMs`, and parses what it resolves with. */
export async function review<T>(
  what: string,
  call: (signal: AbortSignal) => Promise<unknown>,
  schema: z.ZodType<T>,
  clock: Clock,
  timeoutMs: number,
): Promise<ReviewOutcome<T>> {
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(new Error(`${what} timed out after ${timeoutMs}ms`)), timeoutMs);
  let raw: unknown;
  try {
    raw = await call(controller.signal);
  } catch (err) {
    return { ok: false, stage: 'call', err };
  } finally {
    clock.clearTimeout(timer);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, reply: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, stage: 'reply', where: issue === undefined ? '' : ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` };
}
