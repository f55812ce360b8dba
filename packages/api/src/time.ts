/**
 * The API's time formats on the wire, in one place: metav1.Time (RFC 3339 at second precision),
 * metav1.MicroTime (exactly six fractional digits: the API server rejects three) and Go's
 * time.RFC3339Nano (fraction with trailing zeros trimmed). All take epoch milliseconds, in UTC.
 */

/** metav1.Time: "2026-01-01T00:00:00Z". */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: "2026-01-01T00:00:10.123000Z" (Lease renewTime, Event eventTime). */
export function formatMicroTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Go's time.RFC3339Nano: "2026-01-01T00:00:00.12Z", "2026-01-01T00:00:00Z". */
export function formatRfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}
