/**
 * Formats milliseconds like Go's time.Duration.String(), which upstream messages embed:
 * 0s, 500ms, 1.5s, 3m0s, 3m0.25s, 1h2m3s.
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${trim(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = `${trim(rest / 1000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trim(n: number): string {
  // at most nanosecond precision, no trailing zeros
  return Number(n.toFixed(9)).toString();
}
