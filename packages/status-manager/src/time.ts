/** RFC 3339 at second precision, as metav1.Time serialises ("2026-01-01T00:00:00Z"). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
