/**
 * usageNanoCores from successive cumulative samples, per key (node, pod UID, container ID): the
 * CPU used between the previous sample and this one divided by the time between them, in
 * billionths of a core. As upstream's CRI stats provider: no previous sample, a counter that went
 * backwards (a new container with the same key) or no elapsed time gives no figure, and the new
 * sample is kept for the next call.
 */
export class CpuRateTracker {
  readonly #samples = new Map<string, { usageNs: number; timeNs: number }>();
  readonly #lastRate = new Map<string, number>();
  /** Key → the sweep round it was last updated in. */
  readonly #seenIn = new Map<string, number>();
  #round = 0;

  update(key: string, usageNs: number, timeNs: number): number | undefined {
    this.#seenIn.set(key, this.#round);
    const previous = this.#samples.get(key);
    if (previous !== undefined && previous.timeNs === timeNs && previous.usageNs === usageNs) {
      // The same sample again (a runtime that caches its stats): keep the older baseline.
      return this.#lastRate.get(key);
    }
    this.#samples.set(key, { usageNs, timeNs });
    if (previous === undefined || usageNs < previous.usageNs || timeNs <= previous.timeNs) {
      this.#lastRate.delete(key);
      return undefined;
    }
    const rate = Math.round(((usageNs - previous.usageNs) / (timeNs - previous.timeNs)) * 1e9);
    this.#lastRate.set(key, rate);
    return rate;
  }

  /**
   * Forgets the keys not updated in this round nor the `graceRounds` before it (containers and pods
   * that are gone), and starts a new round. A collection that measured every pod sweeps with 0; one
   * that measured some gives the others time until the next complete one.
   */
  sweep(graceRounds = 0): void {
    for (const [key, round] of [...this.#seenIn]) {
      if (this.#round - round > graceRounds) {
        this.#samples.delete(key);
        this.#lastRate.delete(key);
        this.#seenIn.delete(key);
      }
    }
    this.#round++;
  }

  get size(): number {
    return this.#samples.size;
  }
}
