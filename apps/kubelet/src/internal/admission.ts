// Pod admission as upstream wires it in NewMainKubelet: eviction first (added elsewhere), then the
// sysctl allowlist, then the predicates over the node as the kubelet sees it (getNodeAnyWay).
import type { PodAdmitHandler as AdmissionHandler, PreemptPodRequest } from '@kubelet-ts/admission';
import { createCriticalPodAdmissionHandler, createPredicateAdmitHandler, createSysctlAdmitHandler } from '@kubelet-ts/admission';
import type { Node, Pod } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { Runnable } from './supervise.js';

/**
 * The node admission weighs pods against (upstream getNodeAnyWay): the API's Node when the informer
 * has it (labels and taints an administrator set count), else the node the kubelet builds itself
 * (initialNode with every status setter), refreshed every nodeStatusUpdateFrequency.
 */
export interface AdmissionNode extends Runnable {
  get(): Node | undefined;
  /** Builds the local node now unless the API's Node is known: awaited once before the pod sources start, so no pod meets "no node". */
  refresh(): Promise<void>;
}

export interface AdmissionNodeOptions {
  apiNode?: () => Node | undefined;
  localNode: () => Promise<Node>;
  refreshMs: number;
  clock: Clock;
  logger: Logger;
}

export function createAdmissionNode(o: AdmissionNodeOptions): AdmissionNode {
  let local: Node | undefined;
  const refresh = async (): Promise<void> => {
    try {
      local = await o.localNode();
    } catch (err) {
      // The last node stays: admission keeps its view until the next refresh works.
      o.logger.warn('Cannot build the node for pod admission, keeping the last one', { err: errorMessage(err) });
    }
  };
  // With the API's Node at hand the local one is not built: its setters would record node events again.
  const refreshUnlessApiNode = async (): Promise<void> => {
    if (o.apiNode?.() === undefined) await refresh();
  };
  return {
    get: () => o.apiNode?.() ?? local,
    refresh: refreshUnlessApiNode,
    async run(signal) {
      while (!signal.aborted) {
        await refreshUnlessApiNode();
        try {
          await o.clock.sleep(o.refreshMs, signal);
        } catch {
          return;
        }
      }
    },
  };
}

export interface AdmitHandlersOptions {
  node: Pick<AdmissionNode, 'get'>;
  /** Upstream's resource allocator handler (the CPU manager's exclusive CPUs), between the two. */
  resourceAllocator?: { admit(pod: Pod): { admit: boolean; reason?: string; message?: string } };
  allowedUnsafeSysctls: readonly string[];
  /** Critical pod preemption (upstream NewCriticalPodAdmissionHandler): how a preempted pod is killed (the lifecycle's evictPod). */
  preempt: { killPod(pod: Pod, request: PreemptPodRequest): Promise<void>; recorder: EventRecorder; metrics: Metrics };
  logger: Logger;
}

/** The sysctl, resource allocator and predicate handlers, in upstream order; a bad allowlist throws (upstream does not start). */
export function admitHandlers(o: AdmitHandlersOptions): AdmissionHandler[] {
  const admissionFailureHandler = createCriticalPodAdmissionHandler({ ...o.preempt, logger: o.logger });
  return [
    createSysctlAdmitHandler({ allowedUnsafeSysctls: o.allowedUnsafeSysctls, logger: o.logger }),
    ...(o.resourceAllocator === undefined ? [] : [{ admit: (attrs: { pod: Pod }) => o.resourceAllocator!.admit(attrs.pod) }]),
    createPredicateAdmitHandler({ getNode: () => o.node.get(), admissionFailureHandler, logger: o.logger }),
  ];
}
