import { StatusReason } from '@kubelet-ts/api';

/** An error as the API client throws it: `statusCode` and the Status `reason` (what isNotFound & co read). */
export function apiStatusError(
  statusCode: number,
  reason: string,
  message = `${statusCode} ${reason}`,
): Error & { statusCode: number; reason: string } {
  return Object.assign(new Error(message), { statusCode, reason });
}

export const notFound = (what: string): Error => apiStatusError(404, StatusReason.NotFound, `${what} not found`);
export const alreadyExists = (what: string): Error => apiStatusError(409, StatusReason.AlreadyExists, `${what} already exists`);
export const conflict = (what: string): Error =>
  apiStatusError(
    409,
    StatusReason.Conflict,
    `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`,
  );
