import type { StatusSink, VersionedPodStatus } from '../types.js';

export type FakeStatusSinkCall = { method: 'statusChanged'; status: VersionedPodStatus } | { method: 'statusRemoved'; uid: string };

/**
 * A StatusSink for tests: records every call in order, and the latest version per pod (what an
 * API server would hold). Set `error` to make the next call throw (the manager must survive it).
 */
export class FakeStatusSink implements StatusSink {
  readonly calls: FakeStatusSinkCall[] = [];
  /** The latest version sent per pod UID; removed pods are dropped. */
  readonly latest = new Map<string, VersionedPodStatus>();
  error: Error | undefined;

  statusChanged(status: VersionedPodStatus): void {
    this.calls.push({ method: 'statusChanged', status });
    this.#fail();
    this.latest.set(status.uid, status);
  }

  statusRemoved(uid: string): void {
    this.calls.push({ method: 'statusRemoved', uid });
    this.#fail();
    this.latest.delete(uid);
  }

  /** The versions sent for one pod, in order. */
  versionsOf(uid: string): number[] {
    return this.calls.flatMap((c) => (c.method === 'statusChanged' && c.status.uid === uid ? [c.status.version] : []));
  }

  #fail(): void {
    const err = this.error;
    this.error = undefined;
    if (err !== undefined) throw err;
  }
}
