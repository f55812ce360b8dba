import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Gauge, Logger, Metrics, ObjectReference } from '@kubelet-ts/common';
import { EventType, errorMessage, noopEventRecorder, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import {
  DISRUPTION_TARGET_CONDITION,
  GRACEFUL_NODE_SHUTDOWN_STATE_FILE,
  GRACEFUL_SHUTDOWN_END_TIME_METRIC,
  GRACEFUL_SHUTDOWN_START_TIME_METRIC,
  NODE_SHUTDOWN_EVENT_REASON,
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
  NODE_SHUTDOWN_REASON,
  NODE_SHUTTING_DOWN_MESSAGE,
  SHUTDOWN_CANCELLED_MESSAGE,
  SHUTDOWN_DETECTED_MESSAGE,
  TERMINATION_BY_KUBELET_REASON,
} from './constants.js';
import { NodeShutdownError } from './errors.js';
import { groupByPriority, periodRequestedMs, shutdownGroups } from './priority.js';
import type { ShutdownGracePeriodByPodPriority } from './priority.js';
import { loadShutdownState, storeShutdownState } from './state.js';

/** A held delay inhibitor; the shutdown goes on once it is released. */
export interface InhibitLock {
  release(): Promise<void>;
}

/** The watch on shutdown events of one connection; `ended` resolves when the connection went away. */
export interface ShutdownMonitor {
  readonly ended: Promise<void>;
}

/**
 * What the manager needs of systemd-logind (upstream's dbusInhibiter), over one connection:
 * `connectSystemdInhibitor` is the real one, `FakeInhibitor` (./testing) the test's.
 */
export interface ShutdownInhibitor {
  /** logind's InhibitDelayMaxUSec, in ms. */
  currentInhibitDelayMs(): Promise<number>;
  /** Takes a delay inhibitor for shutdown (who "kubelet"). */
  inhibitShutdown(): Promise<InhibitLock>;
  /** Writes the logind.conf.d drop-in that raises InhibitDelayMaxSec to this. */
  overrideInhibitDelay(ms: number): Promise<void>;
  /** Makes logind read its configuration again (SIGHUP through systemd). */
  reloadLogindConf(): Promise<void>;
  /** PrepareForShutdown(true) or (false, a cancelled shutdown) to `onEvent`, until the connection ends. */
  monitorShutdown(onEvent: (shuttingDown: boolean) => void): Promise<ShutdownMonitor>;
  /** Closes the connection (held locks are the caller's to release). */
  close(): void;
}

/** The status a killed pod keeps (upstream's status function of killPodNow). */
export interface ShutdownKillRequest {
  gracePeriodSeconds: number;
  reason: string;
  message: string;
  condition: { type: string; status: string; reason: string; message: string };
}

export interface NodeShutdownManagerOptions {
  /** shutdownGracePeriod and shutdownGracePeriodCriticalPods, in ms. */
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  shutdownGracePeriodByPodPriority?: readonly ShutdownGracePeriodByPodPriority[];
  /** The GracefulNodeShutdown gate (default on): off, the manager does nothing. */
  enabled?: boolean;
  /** The GracefulNodeShutdownBasedOnPodPriority gate (default on): shutdownGracePeriodByPodPriority, the metrics and the state file. */
  byPodPriority?: boolean;
  /** A new connection to logind, for each (re)start of the watch. */
  connectInhibitor: () => Promise<ShutdownInhibitor>;
  /** Upstream GetActivePods. */
  getActivePods: () => readonly Pod[];
  /** Upstream killPodNow: resolves once the pod's containers stopped. */
  killPod: (pod: Pod, request: ShutdownKillRequest) => Promise<void>;
  /** Upstream WaitForAllPodsUnmount, bounded by the group's budget (the signal aborts at its end). */
  waitForAllPodsUnmount?: (pods: readonly Pod[], signal: AbortSignal) => Promise<void>;
  /** Upstream syncNodeStatus: the Ready condition is reported at once. */
  syncNodeStatus?: () => void;
  /** The kubelet's root dir: graceful_node_shutdown_state lives there. */
  stateDir: string;
  /** The Node the events are about. */
  nodeRef: ObjectReference;
  /** Between reconnections to the bus (upstream 1 s). */
  reconnectPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  recorder?: EventRecorder;
  metrics?: Metrics;
}

export interface NodeShutdownManager {
  /** Whether there is anything to do: the gate on and a non-zero grace period. */
  readonly enabled: boolean;
  /** Upstream Admit: every pod refused while the node shuts down. */
  admit(pod: Pod): { admit: boolean; reason?: string; message?: string };
  /** Upstream ShutdownStatus: "node is shutting down" while it does, for the Ready condition. */
  shutdownErrors(): string[];
  /**
   * Upstream Start and its watch: checks and raises logind's inhibit delay, takes the inhibitor,
   * watches PrepareForShutdown and reconnects after the bus went away, until the signal aborts
   * (then the inhibitor is released). Rejects with START_FAILED when the first start fails, as
   * upstream gives up then.
   */
  run(signal: AbortSignal): Promise<void>;
}

/** After a reload logind takes its new configuration asynchronously: how long to look for it. */
const RELOAD_WAIT_MS = 5_000;
const RELOAD_POLL_MS = 100;

/** Upstream NewManager (Linux): a stub when the gate is off or no grace period is configured. */
export function createNodeShutdownManager(o: NodeShutdownManagerOptions): NodeShutdownManager {
  const clock = o.clock ?? systemClock;
  const logger = o.logger ?? noopLogger;
  const recorder = o.recorder ?? noopEventRecorder;
  const byPodPriority = o.byPodPriority !== false;
  const groups = shutdownGroups({ ...o, byPodPriority });
  const enabled = o.enabled !== false && groups.length > 0;
  if (!enabled) return { enabled: false, admit: () => ({ admit: true }), shutdownErrors: () => [], run: async () => undefined };

  const statePath = path.join(o.stateDir, GRACEFUL_NODE_SHUTDOWN_STATE_FILE);
  const metrics = o.metrics ?? noopMetrics;
  let gauges: { start: Gauge; end: Gauge } | undefined;
  const metricsOn = (): { start: Gauge; end: Gauge } | undefined => {
    if (!byPodPriority) return undefined;
    gauges ??= {
      start: metrics.gauge({
        name: GRACEFUL_SHUTDOWN_START_TIME_METRIC,
        help: 'Last graceful shutdown start time since unix epoch in seconds',
      }),
      // Upstream's help of the end time says "start" too (metrics.go): kept word for word, as every help text here.
      end: metrics.gauge({
        name: GRACEFUL_SHUTDOWN_END_TIME_METRIC,
        help: 'Last graceful shutdown start time since unix epoch in seconds',
      }),
    };
    return gauges;
  };
  const seconds = (ms: number): number => (ms === 0 ? 0 : Math.floor(ms / 1000));
  let shuttingDown = false;
  logger.info('Creating node shutdown manager', {
    shutdownGracePeriodRequested: `${o.shutdownGracePeriodMs / 1000}s`,
    shutdownGracePeriodCriticalPods: `${o.shutdownGracePeriodCriticalPodsMs / 1000}s`,
    shutdownGracePeriodByPodPriority: groups,
  });

  /** Upstream podManager.killPods: group after group, each for at most its budget. */
  const killPods = async (activePods: readonly Pod[]): Promise<void> => {
    for (const group of groupByPriority(groups, activePods)) {
      if (group.pods.length === 0) continue;
      const budgetMs = group.shutdownGracePeriodSeconds * 1000;
      const budget = new AbortController();
      const kills = group.pods.map(async (pod) => {
        // The pod's own terminationGracePeriodSeconds when it is shorter.
        const own = pod.spec.terminationGracePeriodSeconds;
        const gracePeriodSeconds =
          own !== undefined && own !== null && own <= group.shutdownGracePeriodSeconds ? own : group.shutdownGracePeriodSeconds;
        const fields = { pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`, gracePeriod: gracePeriodSeconds };
        logger.debug('Shutdown manager killing pod with gracePeriod', fields);
        try {
          await o.killPod(pod, {
            gracePeriodSeconds,
            reason: NODE_SHUTDOWN_REASON,
            message: NODE_SHUTDOWN_MESSAGE,
            condition: {
              type: DISRUPTION_TARGET_CONDITION,
              status: 'True',
              reason: TERMINATION_BY_KUBELET_REASON,
              message: NODE_SHUTDOWN_MESSAGE,
            },
          });
          logger.debug('Shutdown manager finished killing pod', fields);
        } catch (err) {
          logger.debug('Shutdown manager failed killing pod', { ...fields, err: errorMessage(err) });
        }
      });
      const done = (async () => {
        await Promise.all(kills);
        // Volumes unmounted before the next group: a CSI driver in a higher group can still unmount (upstream).
        try {
          await o.waitForAllPodsUnmount?.(group.pods, budget.signal);
        } catch (err) {
          logger.error('Failed while waiting for all the volumes belonging to Pods in this group to unmount', {
            pods: group.pods.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`),
            err: errorMessage(err),
          });
        }
        return 'done' as const;
      })();
      const timeout = clock.sleep(budgetMs, budget.signal).then(
        () => 'timeout' as const,
        () => 'done' as const,
      );
      const outcome = await Promise.race([done, timeout]);
      budget.abort();
      const groupFields = { gracePeriod: group.shutdownGracePeriodSeconds, priority: group.priority };
      if (outcome === 'done') logger.debug('Done waiting for all pods in group to terminate', groupFields);
      else logger.debug('Shutdown manager pod killing time out', groupFields);
    }
  };

  /** Upstream processShutdownEvent: the state file and metrics around killing every active pod. */
  const processShutdownEvent = async (): Promise<void> => {
    logger.debug('Shutdown manager processing shutdown event');
    const activePods = o.getActivePods();
    const g = metricsOn();
    const startTimeMs = clock.now();
    if (g !== undefined) {
      await storeShutdownState(statePath, { startTimeMs, endTimeMs: 0 }).catch((err: unknown) =>
        logger.error('Failed to store graceful shutdown state', { err: errorMessage(err) }),
      );
      g.start.set(seconds(startTimeMs));
      g.end.set(0);
    }
    try {
      await killPods(activePods);
    } finally {
      if (g !== undefined) {
        const endTimeMs = clock.now();
        await storeShutdownState(statePath, { startTimeMs, endTimeMs }).catch((err: unknown) =>
          logger.error('Failed to store graceful shutdown state', { err: errorMessage(err) }),
        );
        g.end.set(seconds(endTimeMs));
      }
    }
  };

  /** Upstream setMetrics: the last shutdown's times from the state file, once the first watch started. */
  const setMetrics = async (): Promise<void> => {
    const g = metricsOn();
    if (g === undefined) return;
    try {
      const state = await loadShutdownState(statePath);
      if (state.startTimeMs !== 0) g.start.set(seconds(state.startTimeMs));
      if (state.endTimeMs !== 0) g.end.set(seconds(state.endTimeMs));
    } catch (err) {
      logger.error('Failed to load graceful shutdown state', { err: errorMessage(err) });
    }
  };

  let lock: InhibitLock | undefined;
  const releaseLock = async (): Promise<void> => {
    const held = lock;
    lock = undefined;
    await held?.release().catch((err: unknown) => logger.error('Failed releasing the inhibit lock', { err: errorMessage(err) }));
  };
  /** Upstream acquireInhibitLock: a new lock first, then the old one released. */
  const acquireInhibitLock = async (inhibitor: ShutdownInhibitor): Promise<void> => {
    const next = await inhibitor.inhibitShutdown();
    await releaseLock();
    lock = next;
  };

  /** Upstream start: one connection's checks, lock and watch; events are handled one after another. */
  const start = async (): Promise<{ inhibitor: ShutdownInhibitor; monitor: ShutdownMonitor; idle: () => Promise<void> }> => {
    const inhibitor = await o.connectInhibitor();
    let locked = false;
    try {
      const current = await inhibitor.currentInhibitDelayMs();
      const requested = periodRequestedMs(groups);
      if (requested > current) {
        await inhibitor.overrideInhibitDelay(requested).catch((err: unknown) => {
          throw new NodeShutdownError('START_FAILED', `unable to override inhibit delay by shutdown manager: ${errorMessage(err)}`, {
            cause: err,
          });
        });
        await inhibitor.reloadLogindConf();
        let updated = await inhibitor.currentInhibitDelayMs();
        // logind reloads after the signal, asynchronously (upstream reads once, and may race it).
        for (let waited = 0; updated < requested && waited < RELOAD_WAIT_MS; waited += RELOAD_POLL_MS) {
          await clock.sleep(RELOAD_POLL_MS);
          updated = await inhibitor.currentInhibitDelayMs();
        }
        if (requested > updated)
          throw new NodeShutdownError(
            'INHIBIT_DELAY_TOO_SHORT',
            `node shutdown manager was unable to update logind InhibitDelayMaxSec to ${requested / 1000}s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (${updated / 1000}s) is less than requested ShutdownGracePeriod`,
          );
      }
      await acquireInhibitLock(inhibitor);
      locked = true;
      let queue = Promise.resolve();
      const monitor = await inhibitor.monitorShutdown((isShuttingDown) => {
        queue = queue.then(() => handleEvent(inhibitor, isShuttingDown));
      });
      return { inhibitor, monitor, idle: () => queue };
    } catch (err) {
      // Upstream releases the lock it just took when the watch fails; one held from before stays.
      if (locked) await releaseLock();
      inhibitor.close();
      throw err;
    }
  };

  const handleEvent = async (inhibitor: ShutdownInhibitor, isShuttingDown: boolean): Promise<void> => {
    logger.debug('Shutdown manager detected new shutdown event', { event: isShuttingDown ? 'shutdown' : 'cancelled' });
    recorder.event(
      o.nodeRef,
      EventType.Normal,
      NODE_SHUTDOWN_EVENT_REASON,
      isShuttingDown ? SHUTDOWN_DETECTED_MESSAGE : SHUTDOWN_CANCELLED_MESSAGE,
    );
    shuttingDown = isShuttingDown;
    if (!isShuttingDown) {
      await acquireInhibitLock(inhibitor).catch((err: unknown) =>
        logger.error('Failed to take the inhibit lock again', { err: errorMessage(err) }),
      );
      return;
    }
    // The Ready condition says so at once.
    o.syncNodeStatus?.();
    try {
      await processShutdownEvent();
    } finally {
      await releaseLock();
      logger.debug('Shutdown manager completed processing shutdown event, node will shutdown shortly');
    }
  };

  return {
    enabled: true,
    admit: () =>
      shuttingDown
        ? { admit: false, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE }
        : { admit: true },
    shutdownErrors: () => (shuttingDown ? [NODE_SHUTTING_DOWN_MESSAGE] : []),
    async run(signal) {
      let first = true;
      while (!signal.aborted) {
        let session: Awaited<ReturnType<typeof start>>;
        try {
          session = await start();
        } catch (err) {
          if (first) throw NodeShutdownError.from(err, 'START_FAILED', `Failed to start node shutdown manager: ${errorMessage(err)}`);
          logger.error('Unable to watch the node for shutdown events', { err: errorMessage(err) });
          await clock.sleep(o.reconnectPeriodMs ?? 1_000, signal).catch(() => undefined);
          continue;
        }
        if (first) {
          first = false;
          await setMetrics();
        }
        const aborted = new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
        await Promise.race([session.monitor.ended, aborted]);
        if (signal.aborted) {
          // The kubelet stops: a shutdown in progress goes on only as far as the process does.
          await releaseLock();
          session.inhibitor.close();
          return;
        }
        await session.idle();
        logger.error('Ended to watching the node for shutdown events');
        session.inhibitor.close();
        await clock.sleep(o.reconnectPeriodMs ?? 1_000, signal).catch(() => undefined);
        logger.debug('Restarting watch for node shutdown events');
      }
    },
  };
}
