/** The verdict of a health check: healthy, or not with the reason. */
export type HealthCheckResult = { healthy: true } | { healthy: false; message: string };

/**
 * A named health check for /healthz (upstream healthz.HealthChecker: `pleg`, `syncloop`):
 * `check()` returns when healthy and throws an Error carrying the upstream message otherwise.
 * Structurally the `HealthzCheck` of @kubelet-ts/server.
 */
export interface HealthChecker {
  readonly name: string;
  check(): void;
}

/** Turns a verdict function into a throwing {@link HealthChecker}. */
export function toHealthChecker(name: string, verdict: () => HealthCheckResult): HealthChecker {
  return {
    name,
    check() {
      const result = verdict();
      if (!result.healthy) throw new Error(result.message);
    },
  };
}
