/** Runs fn once every earlier operation on the same pod has settled. */
export type PodLock = <T>(uid: string, fn: () => Promise<T>) => Promise<T>;

/** Operations on one pod never overlap (upstream nestedpendingoperations, per pod); different pods run in parallel. */
export function createPodLock(): PodLock {
  const locks = new Map<string, Promise<unknown>>();
  return <T>(uid: string, fn: () => Promise<T>): Promise<T> => {
    const previous = locks.get(uid) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    locks.set(uid, settled);
    void settled.then(() => {
      if (locks.get(uid) === settled) locks.delete(uid);
    });
    return next;
  };
}
