/**
 * Waits for `promise` unless `signal` aborts first, then rejects with `reason()` (default: the
 * signal's reason) at once; the promise itself goes on, and its outcome is dropped. An aborted
 * signal rejects before waiting; no signal waits for the promise.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  reason: () => unknown = () => signal?.reason,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
