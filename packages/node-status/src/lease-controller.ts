// Upstream component-helpers/apimachinery/lease controller (Run, not Start) with the kubelet's
// SetNodeOwnerFunc (pkg/kubelet/util/nodelease.go): the node's heartbeat in kube-node-lease.
import { formatMicroTime, isConflict, isNotFound, NODE_LEASE_NAMESPACE } from '@kubelet-ts/api';
import type { Lease } from '@kubelet-ts/api';
import { errorMessage, jitter, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { NodeStatusError } from './errors.js';
import { parseLease, parseNode } from './internal/validate.js';
import type { LeaseApi, NodeApi } from './ports.js';

/** Upstream defaults: `nodeLeaseDurationSeconds` and the kubelet's renew fraction, the controller's limits. */
export const NODE_LEASE_DEFAULTS = {
  leaseDurationSeconds: 40,
  /** nodeLeaseRenewIntervalFraction. */
  renewIntervalFraction: 0.25,
  jitterFactor: 0.04,
  /** maxUpdateRetries. */
  updateRetries: 5,
  /** backoffEnsureLease: 100 ms doubled before each wait (the first wait is 200 ms), at most 7 s. */
  backoffStartMs: 100,
  backoffMaxMs: 7_000,
} as const;

export interface NodeLeaseControllerOptions {
  nodeName: string;
  leaseApi: LeaseApi;
  /** To set the owner reference to the Node (upstream SetNodeOwnerFunc GETs it); without it the lease has none. */
  nodeApi?: Pick<NodeApi, 'get'>;
  /** Default the node name. */
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** Default leaseDuration × 0.25 (10 s). */
  renewIntervalMs?: number;
  /** Default kube-node-lease. */
  namespace?: string;
  /** Called when a renewal retry fails too (the kubelet closes all connections to the API server). */
  onRepeatedHeartbeatFailure?: () => void;
  clock: Clock;
  logger?: Logger;
  metrics?: Metrics;
  random?: () => number;
}

export interface NodeLeaseController {
  /** Upstream Run: sync now, then every renew interval (jitter 4 %) until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** One round: renew from the last lease, else GET (or create) it and renew. Never throws but on abort. */
  sync(signal?: AbortSignal): Promise<void>;
  /** The lease the API server last returned. */
  readonly latestLease: Lease | undefined;
}

export function createNodeLeaseController(options: NodeLeaseControllerOptions): NodeLeaseController {
  const { nodeName, leaseApi, clock } = options;
  const namespace = options.namespace ?? NODE_LEASE_NAMESPACE;
  const holderIdentity = options.holderIdentity ?? nodeName;
  const leaseDurationSeconds = options.leaseDurationSeconds ?? NODE_LEASE_DEFAULTS.leaseDurationSeconds;
  const renewIntervalMs = options.renewIntervalMs ?? leaseDurationSeconds * 1000 * NODE_LEASE_DEFAULTS.renewIntervalFraction;
  const logger = (options.logger ?? noopLogger).child({ lease: `${namespace}/${nodeName}` });
  const renewals = (options.metrics ?? noopMetrics).counter<'result'>({
    name: 'kubelet_ts_node_lease_requests_total',
    help: 'Node lease writes, by result (created, renewed, conflict, failed).',
    labelNames: ['result'],
  });
  const source = `lease ${namespace}/${nodeName}`;
  let latestLease: Lease | undefined;

  /** Upstream SetNodeOwnerFunc: while the lease has no owner, GET the Node for its UID; a failure fails the write. */
  const setNodeOwner = async (lease: Lease): Promise<void> => {
    if (options.nodeApi === undefined || (lease.metadata.ownerReferences?.length ?? 0) > 0) return;
    const node = parseNode(await options.nodeApi.get(nodeName), `GET nodes/${nodeName}`);
    const uid = node.metadata.uid;
    if (uid === undefined || uid === '') throw new NodeStatusError('INVALID_OBJECT', `GET nodes/${nodeName}: the Node has no uid`);
    lease.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid }];
  };

  /** Upstream newLease: a fresh lease or a copy of `base`, with the duration and renewTime asserted. */
  const newLease = async (base: Lease | undefined): Promise<Lease> => {
    const lease: Lease =
      base === undefined
        ? { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: nodeName, namespace }, spec: { holderIdentity } }
        : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...structuredClone(base) };
    lease.spec = { ...lease.spec, leaseDurationSeconds, renewTime: formatMicroTime(clock.now()) };
    await setNodeOwner(lease);
    return lease;
  };

  /** Upstream ensureLease: the existing lease, or the one created now; undefined when it cannot be built yet. */
  const ensureLease = async (): Promise<{ lease: Lease | undefined; created: boolean }> => {
    try {
      return { lease: parseLease(await leaseApi.get(namespace, nodeName), `GET ${source}`), created: false };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    let toCreate: Lease;
    try {
      toCreate = await newLease(undefined);
    } catch (err) {
      // Without its owner the lease is not created this round; the next sync tries again.
      logger.error('Failed to prepare the lease', { err: errorMessage(err) });
      return { lease: undefined, created: false };
    }
    const created = parseLease(await leaseApi.create(toCreate), `POST ${source}`);
    renewals.inc({ result: 'created' });
    return { lease: created, created: true };
  };

  /** Upstream backoffEnsureLease: ensureLease until it works, waiting 200 ms doubling to 7 s. */
  const backoffEnsureLease = async (signal?: AbortSignal): Promise<{ lease: Lease | undefined; created: boolean }> => {
    let sleep: number = NODE_LEASE_DEFAULTS.backoffStartMs;
    for (;;) {
      try {
        return await ensureLease();
      } catch (err) {
        sleep = Math.min(2 * sleep, NODE_LEASE_DEFAULTS.backoffMaxMs);
        logger.error('Failed to ensure lease exists, will retry', { err: errorMessage(err), intervalMs: sleep });
        await clock.sleep(sleep, signal);
      }
    }
  };

  /** Upstream retryUpdateLease: up to 5 PUTs; a conflict fetches the lease again first. */
  const retryUpdateLease = async (start: Lease | undefined, signal?: AbortSignal): Promise<void> => {
    let base = start;
    for (let i = 0; i < NODE_LEASE_DEFAULTS.updateRetries; i++) {
      try {
        const lease = await newLease(base);
        try {
          latestLease = parseLease(await leaseApi.update(lease), `PUT ${source}`);
          renewals.inc({ result: 'renewed' });
          return;
        } catch (err) {
          logger.error('Failed to update lease', { err: errorMessage(err) });
          if (isConflict(err)) {
            renewals.inc({ result: 'conflict' });
            base = (await backoffEnsureLease(signal)).lease;
            continue;
          }
          renewals.inc({ result: 'failed' });
        }
      } catch (err) {
        if (signal?.aborted) throw err;
        logger.error('Failed to prepare lease', { err: errorMessage(err) });
      }
      if (i > 0) options.onRepeatedHeartbeatFailure?.();
    }
    throw new NodeStatusError('LEASE_UPDATE_FAILED', `failed ${NODE_LEASE_DEFAULTS.updateRetries} attempts to update lease`);
  };

  const sync = async (signal?: AbortSignal): Promise<void> => {
    if (latestLease !== undefined) {
      // The lease is ours alone: renew from our last copy, without a GET.
      try {
        await retryUpdateLease(latestLease, signal);
        return;
      } catch (err) {
        if (signal?.aborted) throw err;
        logger.info('Failed to update lease using latest lease, fallback to ensure lease', { err: errorMessage(err) });
      }
    }
    const { lease, created } = await backoffEnsureLease(signal);
    latestLease = lease;
    if (created || lease === undefined) return;
    try {
      await retryUpdateLease(lease, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      logger.error('Will retry updating lease', { err: errorMessage(err), intervalMs: renewIntervalMs });
    }
  };

  return {
    get latestLease() {
      return latestLease;
    },
    sync,
    async run(signal) {
      try {
        while (!signal.aborted) {
          await sync(signal);
          await clock.sleep(jitter(renewIntervalMs, NODE_LEASE_DEFAULTS.jitterFactor, options.random), signal);
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    },
  };
}
