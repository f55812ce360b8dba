/**
 * A FIFO counting semaphore: at most `max` holders; waiters are served in arrival order, so no
 * probe starves. A waiter whose signal aborts leaves the queue.
 */
export interface Limiter {
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
}

export function createLimiter(max: number): Limiter {
  let active = 0;
  const queue: Array<{ grant: () => void }> = [];
  const release = (): void => {
    const next = queue.shift();
    if (next !== undefined) next.grant();
    else active--;
  };
  const releaser = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };
  return {
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(signal.reason);
      if (active < max) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const entry = {
          grant: (): void => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        const onAbort = (): void => {
          const idx = queue.indexOf(entry);
          if (idx >= 0) queue.splice(idx, 1);
          reject(signal?.reason);
        };
        queue.push(entry);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
