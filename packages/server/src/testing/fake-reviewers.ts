import type { SubjectAccessReviewer, TokenReviewer, UserInfo } from '../auth.js';

/**
 * A TokenReview endpoint for tests: tokens registered with `setUser` authenticate as that user, others
 * answer `authenticated: false`. `calls` records each reviewed token; `failWith` makes reviews reject;
 * `setReply` scripts a raw reply for a token (to test malformed replies or `status.error`).
 */
export class FakeTokenReviewer implements TokenReviewer {
  readonly calls: string[] = [];
  readonly #users = new Map<string, UserInfo>();
  readonly #replies = new Map<string, unknown>();
  #error: Error | undefined;

  setUser(token: string, user: UserInfo): void {
    this.#users.set(token, user);
  }

  setReply(token: string, reply: unknown): void {
    this.#replies.set(token, reply);
  }

  /** Reject every review with `error` (or answer again with undefined). */
  failWith(error: Error | undefined): void {
    this.#error = error;
  }

  review(token: string): Promise<unknown> {
    this.calls.push(token);
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#replies.has(token)) return Promise.resolve(structuredClone(this.#replies.get(token)));
    const user = this.#users.get(token);
    const status =
      user === undefined
        ? { authenticated: false }
        : {
            authenticated: true,
            user: {
              username: user.name,
              groups: [...user.groups],
              ...(user.uid !== undefined ? { uid: user.uid } : {}),
              ...(user.extra !== undefined ? { extra: user.extra } : {}),
            },
          };
    return Promise.resolve({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token }, status });
  }
}

/** The status a FakeSubjectAccessReviewer answers. */
export interface FakeSarStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
}

/**
 * A SubjectAccessReview endpoint for tests: `decide(sar)` (default: deny nothing, allow nothing, i.e.
 * no opinion) answers each review; `calls` records the posted reviews; `failWith` makes reviews reject.
 */
export class FakeSubjectAccessReviewer implements SubjectAccessReviewer {
  readonly calls: object[] = [];
  #decide: (sar: { spec: Record<string, unknown> }) => FakeSarStatus;
  #error: Error | undefined;

  constructor(decide?: (sar: { spec: Record<string, unknown> }) => FakeSarStatus) {
    this.#decide = decide ?? (() => ({ allowed: false }));
  }

  /** Replace the decision function. */
  setDecide(decide: (sar: { spec: Record<string, unknown> }) => FakeSarStatus): void {
    this.#decide = decide;
  }

  failWith(error: Error | undefined): void {
    this.#error = error;
  }

  review(sar: object): Promise<unknown> {
    this.calls.push(structuredClone(sar));
    if (this.#error !== undefined) return Promise.reject(this.#error);
    const status = this.#decide(sar as { spec: Record<string, unknown> });
    return Promise.resolve({ ...structuredClone(sar), status });
  }
}
