import { formatTime } from '@kubelet-ts/api';

/** RFC 3339 at second precision, as metav1.Time serialises ("2026-01-01T00:00:00Z"). */
export const rfc3339 = formatTime;
