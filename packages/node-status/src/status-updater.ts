// Upstream syncNodeStatus, updateNodeStatus, tryUpdateNodeStatus, updateNode and
// fastStatusUpdateOnce (pkg/kubelet/kubelet_node_status.go, kubelet.go).
import { nodeStatusPatch } from '@kubelet-ts/api';
import type { Node } from '@kubelet-ts/api';
import { errorMessage, jitter, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { NodeConditionType } from './condition-setters.js';
import { NodeStatusError } from './errors.js';
import { NodeLabel } from './initial-node.js';
import { nodeStatusHasChanged } from './internal/node-equality.js';
import { parseNode } from './internal/validate.js';
import { goArch } from './platform.js';
import type { NodeApi, NodeLister } from './ports.js';
import type { NodeRegistration } from './registration.js';
import type { NodeStartupLatencyTracker } from './startup-latency.js';
import type { NodeStatusManager } from './types.js';

/** Upstream defaults and constants. */
export const NODE_STATUS_DEFAULTS = {
  /** `nodeStatusUpdateFrequency`. */
  updateFrequencyMs: 10_000,
  /** `nodeStatusReportFrequency`. */
  reportFrequencyMs: 5 * 60_000,
  /** wait.JitterUntil's factor for the status loop. */
  jitterFactor: 0.04,
  /** `nodeStatusUpdateRetry`. */
  updateRetries: 5,
  /** fastStatusUpdateOnce: the period of its tries and how long it keeps trying (nodeReadyGracePeriod). */
  fastUpdatePeriodMs: 100,
  nodeReadyGracePeriodMs: 120_000,
} as const;

export interface NodeStatusUpdaterOptions {
  nodeName: string;
  nodeApi: Pick<NodeApi, 'get' | 'patchStatus'>;
  /** The node informer: try 0 of each update reads the node there, without an API call. */
  nodeLister: NodeLister;
  /** Runs the setters on a copy of the API's node. */
  nodeStatus: Pick<NodeStatusManager, 'setNodeStatus'>;
  /** When the kubelet registers its node (`registerNode`): done before the first update. */
  registration?: Pick<NodeRegistration, 'register'>;
  updateFrequencyMs?: number;
  reportFrequencyMs?: number;
  /** Called when a retry fails too (upstream closes all connections to the API server then). */
  onRepeatedHeartbeatFailure?: () => void;
  /** The `kubernetes.io/os` and `kubernetes.io/arch` labels kept right; default linux and the process's. */
  os?: string;
  arch?: string;
  clock: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** Told when a status patch comes back Ready=True: kubelet_node_startup_post_registration and total durations. */
  startupTracker?: Pick<NodeStartupLatencyTracker, 'recordNodeReady'>;
  /** For the jitter (tests). */
  random?: () => number;
}

export interface NodeStatusUpdater {
  /** Upstream syncNodeStatus: registers first when configured, then updateNodeStatus; failures are logged. */
  syncNodeStatus(signal?: AbortSignal): Promise<void>;
  /**
   * Upstream updateNodeStatus: up to 5 tries (the first from the informer, then GETs); PATCHes
   * `nodes/<name>/status` only if the status changed (heartbeat times aside), the os/arch labels
   * needed repair, or `reportFrequency` passed since the last report. Throws `UPDATE_FAILED`.
   */
  updateNodeStatus(): Promise<void>;
  /** Upstream fastStatusUpdateOnce: every 100 ms, patches as soon as the node turns Ready (for 120 s at most). */
  fastStatusUpdateOnce(signal?: AbortSignal): Promise<void>;
  /** fastStatusUpdateOnce, and syncNodeStatus every updateFrequency (jitter 4 %), until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

const readyOf = (node: Node): string | undefined => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;

export function createNodeStatusUpdater(options: NodeStatusUpdaterOptions): NodeStatusUpdater {
  const { nodeName, nodeApi, clock } = options;
  const updateFrequencyMs = options.updateFrequencyMs ?? NODE_STATUS_DEFAULTS.updateFrequencyMs;
  const reportFrequencyMs = options.reportFrequencyMs ?? NODE_STATUS_DEFAULTS.reportFrequencyMs;
  const logger = (options.logger ?? noopLogger).child({ node: nodeName });
  const updates = (options.metrics ?? noopMetrics).counter<'result'>({
    name: 'kubelet_ts_node_status_updates_total',
    help: 'Node status update tries, by result (patched, unchanged, failed).',
    labelNames: ['result'],
  });
  const labels = { [NodeLabel.OS]: options.os ?? 'linux', [NodeLabel.Arch]: options.arch ?? goArch() };
  // Never reported: the first update always patches (upstream's zero lastStatusReportTime).
  let lastStatusReportTime = Number.NEGATIVE_INFINITY;

  // Upstream syncNodeStatusMux: one status computation at a time.
  let tail: Promise<unknown> = Promise.resolve();
  const locked = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = tail.then(fn);
    tail = result.catch(() => undefined);
    return result;
  };

  /** Upstream updateNode: a copy with the os/arch labels repaired and the setters run; and whether it changed. */
  const updateNode = async (original: Node): Promise<{ node: Node; changed: boolean }> => {
    const node = structuredClone(original);
    let labelsRepaired = false;
    for (const [key, value] of Object.entries(labels)) {
      if (node.metadata.labels?.[key] === value) continue;
      node.metadata.labels = { ...node.metadata.labels, [key]: value };
      labelsRepaired = true;
    }
    await options.nodeStatus.setNodeStatus(node);
    return { node, changed: labelsRepaired || nodeStatusHasChanged(original.status, node.status) };
  };

  const patchNodeStatus = async (original: Node, node: Node): Promise<Node> => {
    const updated = parseNode(await nodeApi.patchStatus(nodeName, nodeStatusPatch(original, node)), `PATCH nodes/${nodeName}/status`);
    lastStatusReportTime = clock.now();
    updates.inc({ result: 'patched' });
    // Upstream tryUpdateNodeStatus: the node the API server answered is Ready.
    if (updated.status?.conditions?.some((c) => c.type === NodeConditionType.Ready && c.status === 'True') === true)
      options.startupTracker?.recordNodeReady();
    return updated;
  };

  const fromApi = async (): Promise<Node> => parseNode(await nodeApi.get(nodeName), `GET nodes/${nodeName}`);
  const fromLister = (): Node => {
    const cached = options.nodeLister.get(nodeName);
    if (cached === undefined) throw new NodeStatusError('NODE_NOT_FOUND', `node "${nodeName}" not found in the node informer`);
    return parseNode(cached, `node informer ${nodeName}`);
  };

  const tryUpdateNodeStatus = async (tryNumber: number): Promise<void> => {
    // Try 0 reads the informer's copy: most updates then cost one request, or none. Just registered,
    // before the watch brought the node, it asks the API server (as upstream's try 0 always does).
    // So it does while the watch is down or catching up: after an API server outage the node
    // lifecycle controller has marked the node Unknown, and a stale copy that still says Ready
    // would keep the kubelet from reporting until the watch's back-off (up to a minute) ends.
    const listed = tryNumber === 0 && options.nodeLister.isCurrent?.() !== false && options.nodeLister.get(nodeName) !== undefined;
    const original = listed ? fromLister() : await fromApi();
    const { node, changed } = await updateNode(original);
    if (!changed && clock.now() - lastStatusReportTime < reportFrequencyMs) {
      updates.inc({ result: 'unchanged' });
      logger.debug('Node status unchanged, not reported', {
        try: tryNumber,
        ready: readyOf(original),
        resourceVersion: original.metadata.resourceVersion,
      });
      return;
    }
    await patchNodeStatus(original, node);
  };

  const updateNodeStatus = async (): Promise<void> => {
    for (let i = 0; i < NODE_STATUS_DEFAULTS.updateRetries; i++) {
      try {
        await tryUpdateNodeStatus(i);
        return;
      } catch (err) {
        updates.inc({ result: 'failed' });
        if (i > 0) options.onRepeatedHeartbeatFailure?.();
        logger.error('Error updating node status, will retry', { err: errorMessage(err) });
      }
    }
    throw new NodeStatusError('UPDATE_FAILED', 'update node status exceeds retry count');
  };

  const syncNodeStatus = async (signal?: AbortSignal): Promise<void> => {
    await options.registration?.register(signal);
    await locked(async () => {
      try {
        await updateNodeStatus();
      } catch (err) {
        logger.error('Unable to update node status', { err: errorMessage(err) });
      }
    });
  };

  /** Upstream fastNodeStatusUpdate: 'done' ends the fast loop; 'sync' falls back to a full sync. */
  const fastNodeStatusUpdate = async (timedOut: boolean): Promise<'done' | 'again' | 'sync'> => {
    if (timedOut) {
      logger.error('Node not becoming ready in time after startup');
      return 'done';
    }
    let original: Node;
    try {
      original = fromLister();
    } catch (err) {
      // Upstream logs this at error level ten times a second until registered; debug is enough.
      logger.debug('Error getting the current node from lister', { err: errorMessage(err) });
      return 'again';
    }
    const before = readyOf(original);
    if (before === undefined) return 'again';
    if (before === 'True') return 'done';
    const { node, changed } = await updateNode(original);
    if (!changed || readyOf(node) !== 'True') return 'again';
    logger.info('Fast updating node status as it just became ready');
    try {
      await patchNodeStatus(original, node);
      return 'done';
    } catch (err) {
      // The informer's node was probably stale: a full sync GETs a fresh one.
      logger.error('Error updating node status, will retry with syncNodeStatus', { err: errorMessage(err) });
      return 'sync';
    }
  };

  const fastStatusUpdateOnce = async (signal?: AbortSignal): Promise<void> => {
    const start = clock.now();
    for (;;) {
      const outcome = await locked(() => fastNodeStatusUpdate(clock.now() - start >= NODE_STATUS_DEFAULTS.nodeReadyGracePeriodMs));
      if (outcome === 'sync') await syncNodeStatus(signal);
      if (outcome !== 'again') return;
      await clock.sleep(NODE_STATUS_DEFAULTS.fastUpdatePeriodMs, signal);
    }
  };

  return {
    syncNodeStatus,
    updateNodeStatus: () => locked(updateNodeStatus),
    fastStatusUpdateOnce,
    async run(signal) {
      const stopped = (): boolean => signal.aborted;
      const fast = fastStatusUpdateOnce(signal).catch((err: unknown) => {
        if (!stopped()) logger.error('Fast node status update stopped', { err: errorMessage(err) });
      });
      try {
        while (!stopped()) {
          await syncNodeStatus(signal);
          await clock.sleep(jitter(updateFrequencyMs, NODE_STATUS_DEFAULTS.jitterFactor, options.random), signal);
        }
      } catch (err) {
        if (!stopped()) throw err;
      } finally {
        await fast;
      }
    },
  };
}
