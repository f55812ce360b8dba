// Upstream registerWithAPIServer and tryRegisterWithAPIServer (pkg/kubelet/kubelet_node_status.go).
import { isAlreadyExists, nodeStatusPatch } from '@kubelet-ts/api';
import type { Node } from '@kubelet-ts/api';
import { errorMessage, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import {
  reconcileAttachDetachAnnotation,
  reconcileExtendedResources,
  reconcileHugePages,
  updateDefaultLabels,
} from './internal/reconcile.js';
import { parseNode } from './internal/validate.js';
import type { NodeApi } from './ports.js';
import type { NodeStartupLatencyTracker } from './startup-latency.js';

/** Upstream's registration back-off: 100 ms, doubling, at most 7 s. */
export const REGISTRATION_BACKOFF = { initialMs: 100, maxMs: 7_000 } as const;

export interface NodeRegistrationOptions {
  nodeName: string;
  nodeApi: Pick<NodeApi, 'create' | 'get' | 'patchStatus'>;
  /** The node to register, status included (upstream initialNode: `initialNode()` then the setters). */
  initialNode: () => Promise<Node>;
  /** Upstream containerManager.ShouldResetExtendedResourceCapacity (the node was recreated); default false. */
  shouldResetExtendedResourceCapacity?: () => boolean;
  clock: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** Told of the first attempt and of a Node created (not found existing): kubelet_node_startup_*. */
  startupTracker?: Pick<NodeStartupLatencyTracker, 'recordAttemptRegisterNode' | 'recordRegisteredNewNode'>;
}

export interface NodeRegistration {
  /**
   * Upstream registerWithAPIServer: tries until the node is registered (or `signal` aborts, which
   * rejects with its reason), sleeping 100 ms doubling to 7 s before each try. Once it succeeded
   * it returns at once for the life of the process: a Node deleted later is never registered again.
   */
  register(signal?: AbortSignal): Promise<void>;
  readonly registered: boolean;
}

export function createNodeRegistration(options: NodeRegistrationOptions): NodeRegistration {
  const { nodeName, nodeApi, clock } = options;
  const logger = (options.logger ?? noopLogger).child({ node: nodeName });
  const attempts = (options.metrics ?? noopMetrics).counter<'result'>({
    name: 'kubelet_ts_node_registration_attempts_total',
    help: 'Attempts to register the node with the API server, by result (registered, reconciled, failed).',
    labelNames: ['result'],
  });
  let registered = false;
  let running: Promise<void> | undefined;

  /** Upstream tryRegisterWithAPIServer: true when the node is registered (created, or existing and reconciled). */
  const tryRegister = async (node: Node): Promise<boolean> => {
    try {
      parseNode(await nodeApi.create(node), `POST nodes/${nodeName}`);
      options.startupTracker?.recordRegisteredNewNode();
      attempts.inc({ result: 'registered' });
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) {
        logger.error('Unable to register node with API server', { err: errorMessage(err) });
        attempts.inc({ result: 'failed' });
        return false;
      }
    }
    try {
      const original = parseNode(await nodeApi.get(nodeName), `GET nodes/${nodeName}`);
      logger.info('Node was previously registered');
      const existing = structuredClone(original);
      // Each reconcile runs (no short circuit): all of them may change the node.
      const changes = [
        reconcileAttachDetachAnnotation(node, existing),
        updateDefaultLabels(node, existing),
        reconcileExtendedResources(node, existing, options.shouldResetExtendedResourceCapacity?.() ?? false),
        reconcileHugePages(node, existing),
      ];
      if (changes.some(Boolean)) {
        parseNode(await nodeApi.patchStatus(nodeName, nodeStatusPatch(original, existing)), `PATCH nodes/${nodeName}/status`);
      }
      attempts.inc({ result: 'reconciled' });
      return true;
    } catch (err) {
      logger.error('Unable to reconcile node with API server', { err: errorMessage(err) });
      attempts.inc({ result: 'failed' });
      return false;
    }
  };

  const loop = async (signal: AbortSignal | undefined): Promise<void> => {
    options.startupTracker?.recordAttemptRegisterNode();
    let step: number = REGISTRATION_BACKOFF.initialMs;
    for (;;) {
      await clock.sleep(step, signal);
      step = Math.min(step * 2, REGISTRATION_BACKOFF.maxMs);
      let node: Node;
      try {
        node = await options.initialNode();
      } catch (err) {
        logger.error('Unable to construct v1.Node object for kubelet', { err: errorMessage(err) });
        continue;
      }
      logger.info('Attempting to register node');
      if (await tryRegister(node)) {
        logger.info('Successfully registered node');
        registered = true;
        return;
      }
    }
  };

  return {
    get registered() {
      return registered;
    },
    register(signal) {
      if (registered) return Promise.resolve();
      // One registration at a time (upstream holds syncNodeStatusMux); a second caller waits for it.
      running ??= loop(signal).finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
