import type { HealthzCheck } from '../healthz.js';

/** A health check whose outcome a test sets, counting how often it ran. */
export interface FakeHealthzCheck extends HealthzCheck {
  /** Make the check fail with this error (or pass again with undefined). */
  failWith(error: Error | undefined): void;
  readonly calls: number;
}

export function createFakeHealthzCheck(name: string): FakeHealthzCheck {
  let error: Error | undefined;
  let calls = 0;
  return {
    name,
    check() {
      calls++;
      if (error !== undefined) throw error;
    },
    failWith(err) {
      error = err;
    },
    get calls() {
      return calls;
    },
  };
}
