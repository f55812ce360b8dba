// Small statistics helpers. Percentiles are nearest-rank on the sorted sample.
export const round = (n, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? null : Number(n.toFixed(digits)));

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** n, min, p50, p90, p99, max, mean of a list of numbers (ms or whatever unit the caller uses). */
export function summarize(values, digits = 1) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const mean = sorted.length === 0 ? null : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    n: sorted.length,
    min: round(sorted[0], digits),
    p50: round(percentile(sorted, 50), digits),
    p90: round(percentile(sorted, 90), digits),
    p99: round(percentile(sorted, 99), digits),
    max: round(sorted[sorted.length - 1], digits),
    mean: round(mean, digits),
  };
}

/** a ÷ b, or null when either is missing. */
export const ratio = (a, b, digits = 2) =>
  a === null || b === null || a === undefined || b === undefined || b === 0 ? null : round(a / b, digits);
