import { randomUUID } from 'node:crypto';
import type { Clock } from '@kubelet-ts/common';
import { systemClock } from '@kubelet-ts/common';
import { CsrConditionType } from '../constants.js';
import type { CertificateSigningRequestBody } from '../csr-object.js';
import type { CsrApi, CsrWatchEvent } from '../request.js';
import { createTestCa } from './test-ca.js';
import type { TestCa } from './test-ca.js';

/** A recorded call of the fake. */
export type FakeCsrApiCall = { method: 'create'; body: CertificateSigningRequestBody } | { method: 'get' | 'watch'; name: string };

/** An error shaped like the API client's: `statusCode` and `reason`, as @kubelet-ts/api's guards read them. */
export class FakeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message = reason,
  ) {
    super(message);
    this.name = 'FakeApiError';
  }
}

export interface FakeCsrApiOptions {
  /** `approve` (default): approve and sign right after create; `manual`: wait for `approve`/`deny`/`fail`. */
  mode?: 'approve' | 'manual';
  ca?: TestCa;
  /** Lifetime of issued certificates; default one year. */
  certificateLifetimeMs?: number;
  clock?: Pick<Clock, 'now'>;
}

/** A CSR as the fake holds it (what the API server would return). */
export type FakeStoredCsr = Record<string, unknown> & {
  metadata: Record<string, unknown> & { name: string; uid: string };
  spec: Record<string, unknown> & { request: string };
  status: { conditions?: Record<string, unknown>[]; certificate?: string };
};

/**
 * An in-memory `certificatesigningrequests` API that auto-approves (or waits for the test to approve,
 * deny or fail) and signs with an in-memory test CA. It records calls; `createError` / `getError`
 * make the next such call throw.
 */
export class FakeCsrApi implements CsrApi {
  readonly ca: TestCa;
  readonly calls: FakeCsrApiCall[] = [];
  readonly objects = new Map<string, FakeStoredCsr>();
  mode: 'approve' | 'manual';
  certificateLifetimeMs: number;
  createError: Error | undefined;
  getError: Error | undefined;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #watchers = new Set<(event: CsrWatchEvent) => void>();
  #resourceVersion = 1;

  constructor(options: FakeCsrApiOptions = {}) {
    this.ca = options.ca ?? createTestCa();
    this.mode = options.mode ?? 'approve';
    this.certificateLifetimeMs = options.certificateLifetimeMs ?? 365 * 86_400_000;
    this.#clock = options.clock ?? systemClock;
  }

  create(body: CertificateSigningRequestBody): Promise<unknown> {
    this.calls.push({ method: 'create', body });
    const error = this.createError;
    this.createError = undefined;
    if (error !== undefined) return Promise.reject(error);
    const name = 'name' in body.metadata ? body.metadata.name : `${body.metadata.generateName}${randomUUID().slice(0, 5)}`;
    if (this.objects.has(name))
      return Promise.reject(new FakeApiError(409, 'AlreadyExists', `certificatesigningrequests "${name}" already exists`));
    const stored: FakeStoredCsr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name, uid: randomUUID(), resourceVersion: String(this.#resourceVersion++) },
      spec: { ...body.spec, username: 'system:bootstrap:fake', groups: ['system:bootstrappers', 'system:authenticated'] },
      status: {},
    };
    this.objects.set(name, stored);
    this.#emit('ADDED', stored);
    if (this.mode === 'approve') queueMicrotask(() => this.approve(name));
    return Promise.resolve(structuredClone(stored));
  }

  get(name: string): Promise<unknown> {
    this.calls.push({ method: 'get', name });
    const error = this.getError;
    this.getError = undefined;
    if (error !== undefined) return Promise.reject(error);
    const stored = this.objects.get(name);
    if (stored === undefined) return Promise.reject(new FakeApiError(404, 'NotFound', `certificatesigningrequests "${name}" not found`));
    return Promise.resolve(structuredClone(stored));
  }

  async *watch(name: string, signal: AbortSignal): AsyncIterable<CsrWatchEvent> {
    this.calls.push({ method: 'watch', name });
    const queue: CsrWatchEvent[] = [];
    let wake: (() => void) | undefined;
    const watcher = (event: CsrWatchEvent): void => {
      if ((event.object as FakeStoredCsr).metadata.name !== name) return;
      queue.push(event);
      wake?.();
    };
    const onAbort = (): void => wake?.();
    this.#watchers.add(watcher);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const existing = this.objects.get(name);
      if (existing !== undefined) queue.push({ type: 'ADDED', object: structuredClone(existing) });
      while (!signal.aborted) {
        const event = queue.shift();
        if (event !== undefined) {
          yield event;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      this.#watchers.delete(watcher);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Approves and signs (the controller manager's csrapproving + csrsigning). */
  approve(name: string): void {
    const stored = this.#stored(name);
    const request = Buffer.from(stored.spec.request, 'base64').toString('utf8');
    const notBefore = this.#clock.now() - 60_000;
    const serving = ((stored.spec as { usages?: string[] }).usages ?? []).includes('server auth');
    const certificate = this.ca.signCsr(
      request,
      { notBefore, notAfter: notBefore + 60_000 + this.certificateLifetimeMs },
      serving ? 'server auth' : 'client auth',
    );
    this.#condition(
      stored,
      CsrConditionType.Approved,
      'AutoApproved',
      'Auto approving kubelet client certificate after SubjectAccessReview.',
    );
    stored.status.certificate = Buffer.from(certificate).toString('base64');
    this.#modified(stored);
  }

  /** Approves without a certificate (the signer has not run yet). */
  approveOnly(name: string): void {
    const stored = this.#stored(name);
    this.#condition(stored, CsrConditionType.Approved, 'AutoApproved', 'approved');
    this.#modified(stored);
  }

  deny(name: string, reason = 'Denied', message = 'denied by the test'): void {
    const stored = this.#stored(name);
    this.#condition(stored, CsrConditionType.Denied, reason, message);
    this.#modified(stored);
  }

  fail(name: string, reason = 'SignerFailed', message = 'the signer failed'): void {
    const stored = this.#stored(name);
    this.#condition(stored, CsrConditionType.Failed, reason, message);
    this.#modified(stored);
  }

  delete(name: string): void {
    const stored = this.#stored(name);
    this.objects.delete(name);
    this.#emit('DELETED', stored);
  }

  /** Replaces the CSR under the same name with one of a new UID (a delete and a create the watch saw as one change). */
  recreate(name: string): void {
    const stored = this.#stored(name);
    stored.metadata.uid = randomUUID();
    stored.status = {};
    this.#modified(stored);
  }

  /** Sends an arbitrary event to the watchers of `name` (an invalid object, an ERROR). */
  emitRaw(name: string, event: CsrWatchEvent): void {
    for (const watcher of this.#watchers) watcher({ ...event, object: { metadata: { name }, ...(event.object as object) } });
  }

  /** Names of the CSRs created, in order. */
  get createdNames(): string[] {
    return [...this.objects.keys()];
  }

  #stored(name: string): FakeStoredCsr {
    const stored = this.objects.get(name);
    if (stored === undefined) throw new Error(`FakeCsrApi: no CSR ${name}`);
    return stored;
  }

  #condition(stored: FakeStoredCsr, type: string, reason: string, message: string): void {
    const at = new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    stored.status.conditions = [
      ...(stored.status.conditions ?? []),
      { type, status: 'True', reason, message, lastUpdateTime: at, lastTransitionTime: at },
    ];
  }

  #modified(stored: FakeStoredCsr): void {
    stored.metadata.resourceVersion = String(this.#resourceVersion++);
    this.#emit('MODIFIED', stored);
  }

  #emit(type: CsrWatchEvent['type'], stored: FakeStoredCsr): void {
    for (const watcher of this.#watchers) watcher({ type, object: structuredClone(stored) });
  }
}
