/** Formats milliseconds the way Go's time.Duration.String() does ("10s", "1m20s", "5m0s", "1.5s"), for upstream-identical messages. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const negative = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${negative ? '-' : ''}${trim(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = trim(rest / 1000);
  let out = '';
  if (hours > 0) out += `${hours}h`;
  if (hours > 0 || minutes > 0) out += `${minutes}m`;
  out += `${seconds}s`;
  return `${negative ? '-' : ''}${out}`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(9)));
}
