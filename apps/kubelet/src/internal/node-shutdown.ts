import type { Pod } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { nodeReference } from '@kubelet-ts/common';
import type { FeatureGates, KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { NodeShutdownManager, ShutdownInhibitor } from '@kubelet-ts/node-shutdown';
import { connectSystemdInhibitor, createNodeShutdownManager } from '@kubelet-ts/node-shutdown';
import type { PodAdmitHandler, PodLifecycle } from '@kubelet-ts/pod-lifecycle';

export interface KubeletNodeShutdownOptions {
  config: Pick<KubeletConfiguration, 'shutdownGracePeriod' | 'shutdownGracePeriodCriticalPods' | 'shutdownGracePeriodByPodPriority'>;
  featureGates: Pick<FeatureGates, 'isEnabled'>;
  /** The root dir: graceful_node_shutdown_state. */
  rootDir: string;
  nodeName: string;
  lifecycle: Pick<PodLifecycle, 'getActivePods' | 'evictPod' | 'podResourcesAreReclaimed'>;
  /** logind over the system bus by default (DBUS_SYSTEM_BUS_ADDRESS). */
  connectInhibitor?: () => Promise<ShutdownInhibitor>;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  metrics: Metrics;
}

/**
 * Upstream's node shutdown manager as NewMainKubelet builds it: the grace periods of the
 * configuration and the two gates, logind on the system bus, the active pods and killPodNow of the
 * pod lifecycle (the pod keeps phase Failed, reason Terminated and the DisruptionTarget condition);
 * a group waits for its pods' resources (volumes among them) to be released before the next.
 */
export function createKubeletNodeShutdownManager(o: KubeletNodeShutdownOptions): NodeShutdownManager {
  const { config, lifecycle, clock } = o;
  return createNodeShutdownManager({
    shutdownGracePeriodMs: durationMs(config.shutdownGracePeriod ?? '0s'),
    shutdownGracePeriodCriticalPodsMs: durationMs(config.shutdownGracePeriodCriticalPods ?? '0s'),
    shutdownGracePeriodByPodPriority: config.shutdownGracePeriodByPodPriority ?? [],
    enabled: o.featureGates.isEnabled('GracefulNodeShutdown'),
    byPodPriority: o.featureGates.isEnabled('GracefulNodeShutdownBasedOnPodPriority'),
    connectInhibitor: o.connectInhibitor ?? (() => connectSystemdInhibitor({ clock, logger: o.logger })),
    getActivePods: () => lifecycle.getActivePods(),
    killPod: (pod, request) => lifecycle.evictPod(pod.metadata.uid, request),
    waitForAllPodsUnmount: async (pods: readonly Pod[], signal) => {
      while (!signal.aborted && !pods.every((p) => lifecycle.podResourcesAreReclaimed(p.metadata.uid)))
        await clock.sleep(200, signal).catch(() => undefined);
    },
    stateDir: o.rootDir,
    nodeRef: nodeReference(o.nodeName),
    clock,
    logger: o.logger,
    recorder: o.recorder,
    metrics: o.metrics,
  });
}

/** The manager as an admit handler (upstream appends it last): every pod refused while the node shuts down. */
export function nodeShutdownAdmitHandler(manager: Pick<NodeShutdownManager, 'admit'>): PodAdmitHandler {
  return { admit: ({ pod }) => manager.admit(pod) };
}
