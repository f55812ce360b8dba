/** The verdict of a health check: healthy, or not with the reason. */
export type HealthCheckResult = { healthy: true } | { healthy: false; message: string };

/** A named health check for /healthz (upstream healthz.HealthChecker: `pleg`, `syncloop`). */
export interface HealthChecker {
  readonly name: string;
  check(): HealthCheckResult;
}
