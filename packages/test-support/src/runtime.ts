// The basics of a test against the runtime test environment: its variables, polling, teardown.
/** A variable of the runtime test environment. */
export function runtimeEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

/**
 * Polls `check` until it returns a value other than undefined or false, or fails after
 * `timeoutMs` with the last error it threw.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : lastError === undefined ? '' : `: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Collects teardown steps and runs them in reverse order, never stopping at a failing one. */
export class Cleanup {
  readonly #steps: (() => Promise<unknown> | unknown)[] = [];

  add(step: () => Promise<unknown> | unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      try {
        await step?.();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'cleanup failed');
  }
}
