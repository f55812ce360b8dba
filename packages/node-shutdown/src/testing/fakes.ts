import type { InhibitLock, ShutdownInhibitor, ShutdownMonitor } from '../manager.js';

export type InhibitorCall =
  | { op: 'currentInhibitDelay' }
  | { op: 'inhibit'; lock: number }
  | { op: 'release'; lock: number }
  | { op: 'override'; ms: number }
  | { op: 'reload' }
  | { op: 'monitor' }
  | { op: 'close' };

/**
 * logind without logind: an inhibit delay that `reloadLogindConf` raises to what was last
 * overridden, numbered locks whose takes and releases are recorded, and `prepareForShutdown` to
 * send the signal. One fake serves every connection the manager makes; `disconnect()` ends the
 * current one.
 */
export class FakeInhibitor {
  readonly calls: InhibitorCall[] = [];
  /** InhibitDelayMaxUSec in ms (logind's default 5 s). */
  inhibitDelayMs = 5_000;
  /** What a reload makes the delay: the override (default), or this when set (a logind that keeps its own). */
  delayAfterReloadMs: number | undefined;
  /** Errors the next connect / inhibit throw. */
  connectErrors: Error[] = [];
  inhibitErrors: Error[] = [];
  connections = 0;
  #overrideMs: number | undefined;
  #next = 1;
  #held = new Set<number>();
  #listener: ((shuttingDown: boolean) => void) | undefined;
  #end: (() => void) | undefined;

  /** The locks held now. */
  get held(): number[] {
    return [...this.#held];
  }

  /** For the manager's `connectInhibitor`. */
  connect = async (): Promise<ShutdownInhibitor> => {
    const error = this.connectErrors.shift();
    if (error !== undefined) throw error;
    this.connections++;
    let ended!: () => void;
    const endedPromise = new Promise<void>((resolve) => (ended = resolve));
    this.#end = ended;
    return {
      currentInhibitDelayMs: async () => {
        this.calls.push({ op: 'currentInhibitDelay' });
        return this.inhibitDelayMs;
      },
      inhibitShutdown: async (): Promise<InhibitLock> => {
        const err = this.inhibitErrors.shift();
        if (err !== undefined) throw err;
        const id = this.#next++;
        this.#held.add(id);
        this.calls.push({ op: 'inhibit', lock: id });
        return {
          release: async () => {
            if (!this.#held.delete(id)) return;
            this.calls.push({ op: 'release', lock: id });
          },
        };
      },
      overrideInhibitDelay: async (ms) => {
        this.calls.push({ op: 'override', ms });
        this.#overrideMs = ms;
      },
      reloadLogindConf: async () => {
        this.calls.push({ op: 'reload' });
        this.inhibitDelayMs = this.delayAfterReloadMs ?? this.#overrideMs ?? this.inhibitDelayMs;
      },
      monitorShutdown: async (onEvent): Promise<ShutdownMonitor> => {
        this.calls.push({ op: 'monitor' });
        this.#listener = onEvent;
        return { ended: endedPromise };
      },
      close: () => {
        this.calls.push({ op: 'close' });
      },
    };
  };

  /** logind's PrepareForShutdown(shuttingDown). */
  prepareForShutdown(shuttingDown: boolean): void {
    this.#listener?.(shuttingDown);
  }

  /** The bus connection goes away: the manager's watch ends. */
  disconnect(): void {
    this.#listener = undefined;
    this.#end?.();
  }
}
