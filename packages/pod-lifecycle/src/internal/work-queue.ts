import type { Clock } from '@kubelet-ts/common';

/**
 * Upstream util/queue.WorkQueue: pod UIDs with the time at which they are due for a resync.
 * The sync loop's 1 s ticker drains the due ones. Enqueueing an already queued UID replaces its
 * due time, as upstream.
 */
export interface WorkQueue {
  enqueue(uid: string, delayMs: number): void;
  /** Removes and returns every UID that is due now. */
  getWork(): string[];
  remove(uid: string): void;
  /** The due time of a UID, for tests and diagnostics. */
  dueAt(uid: string): number | undefined;
}

export function createWorkQueue(clock: Clock): WorkQueue {
  const due = new Map<string, number>();
  return {
    enqueue(uid, delayMs) {
      due.set(uid, clock.now() + Math.max(0, delayMs));
    },
    getWork() {
      const now = clock.now();
      const out: string[] = [];
      for (const [uid, at] of due) {
        if (at <= now) {
          out.push(uid);
          due.delete(uid);
        }
      }
      return out;
    },
    remove(uid) {
      due.delete(uid);
    },
    dueAt(uid) {
      return due.get(uid);
    },
  };
}
