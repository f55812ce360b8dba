/**
 * Runs `fn` over `items`, at most `limit` at once (at least one), starting them in order. `fn` handles
 * its own errors: a rejection stops the workers and rejects the whole call.
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}
