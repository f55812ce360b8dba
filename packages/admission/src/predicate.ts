import type { Node, Pod } from '@kubelet-ts/api';
import { isStaticPod, podRequests, Reason } from '@kubelet-ts/api';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import {
  ADMISSION_MESSAGES,
  INSUFFICIENT_RESOURCE_PREFIX,
  PREDICATE_FAILURE_REASONS,
  UNEXPECTED_ADMISSION_FAILURE_PREFIX,
} from './constants.js';
import { HostPortInfo, hostPorts } from './internal/host-ports.js';
import { requiredNodeAffinity } from './internal/node-affinity.js';
import type { Allocatable, Resource } from './internal/resources.js';
import { addResource, describeInvalid, isExtendedResourceName, nodeAllocatable, toResource } from './internal/resources.js';
import { neverThrows } from './internal/guard.js';
import { findUntoleratedTaint } from './internal/taints.js';
import type { AdmissionFailure, PodAdmitHandler, PodAdmitResult, PredicateAdmitHandlerOptions } from './types.js';

const LABEL_OS_STABLE = 'kubernetes.io/os';

/** Upstream InsufficientResourceError or PredicateFailureError: one failed check of generalFilter. */
type Failure = AdmissionFailure;

const refuse = (reason: string, message: string): PodAdmitResult => ({ admit: false, reason, message });

/** An int64 as Go prints it with %d (a huge value would be in exponent form with String()). */
function formatInt(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(Math.trunc(n)).toString();
}

/** Upstream InsufficientResourceError.Error(). */
function insufficientResourceMessage(f: Extract<Failure, { kind: 'resource' }>): string {
  return `Node didn't have enough resource: ${f.resourceName}, requested: ${formatInt(f.requested)}, used: ${formatInt(f.used)}, capacity: ${formatInt(f.capacity)}`;
}

/** Upstream: cpu, memory, ephemeral-storage and pods have named reasons; every other resource is "OutOf" + its name. */
function insufficientResourceReason(resourceName: string): string {
  switch (resourceName) {
    case 'cpu':
      return Reason.OutOfCPU;
    case 'memory':
      return Reason.OutOfMemory;
    case 'ephemeral-storage':
      return Reason.OutOfEphemeralStorage;
    case 'pods':
      return Reason.OutOfPods;
    default:
      return `${INSUFFICIENT_RESOURCE_PREFIX}${resourceName}`;
  }
}

/** Upstream noderesources fitsRequest: the pod count first, then cpu, memory, ephemeral storage and the scalar resources. */
function fitsRequest(requested: Resource, podCount: number, used: Resource, allocatable: Allocatable): Failure[] {
  const failures: Failure[] = [];
  if (podCount + 1 > allocatable.allowedPodNumber) {
    failures.push({ kind: 'resource', resourceName: 'pods', requested: 1, used: podCount, capacity: allocatable.allowedPodNumber });
  }
  if (requested.milliCPU === 0 && requested.memory === 0 && requested.ephemeralStorage === 0 && requested.scalar.size === 0) {
    return failures;
  }
  const check = (resourceName: string, want: number, inUse: number, capacity: number): void => {
    if (want > 0 && want > capacity - inUse) failures.push({ kind: 'resource', resourceName, requested: want, used: inUse, capacity });
  };
  check('cpu', requested.milliCPU, used.milliCPU, allocatable.milliCPU);
  check('memory', requested.memory, used.memory, allocatable.memory);
  check('ephemeral-storage', requested.ephemeralStorage, used.ephemeralStorage, allocatable.ephemeralStorage);
  // Upstream walks a Go map (random order); sorted here so that the first failure is stable.
  for (const name of [...requested.scalar.keys()].sort()) {
    check(name, requested.scalar.get(name) ?? 0, used.scalar.get(name) ?? 0, allocatable.scalar.get(name) ?? 0);
  }
  return failures;
}

function predicateFailureReason(name: string): string {
  return (PREDICATE_FAILURE_REASONS as Record<string, string>)[name] ?? name;
}

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

/**
 * Upstream lifecycle.NewPredicateAdmitHandler (pkg/kubelet/lifecycle/predicate.go, v1.34): the
 * checks no preemption can help first (the `kubernetes.io/os` pod label, `spec.os`, a Strict
 * supplementalGroupsPolicy on a node without the feature), then generalFilter against the node and
 * the other active pods — noderesources fit (with extended resources the node does not advertise
 * ignored), node affinity and nodeSelector, node name, host ports, and for pods not from a static
 * source NoExecute taints. The first failure is the refusal, as upstream.
 */
export function createPredicateAdmitHandler(options: PredicateAdmitHandlerOptions): PodAdmitHandler {
  const logger = options.logger ?? noopLogger;
  const goos = options.os ?? 'linux';

  const generalFilter = (
    pod: Pod,
    node: Node,
    otherPods: readonly Pod[],
    requested: Resource,
    allocatable: Allocatable,
    matchesAffinity: boolean,
  ): Failure[] => {
    const used: Resource = { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
    const usedPorts = new HostPortInfo();
    for (const other of otherPods) {
      const onInvalid = (where: string, err: unknown): void =>
        logger.warn('Ignoring a resource quantity of an active pod that does not parse', {
          pod: podKey(other),
          podUID: other.metadata.uid,
          err: describeInvalid(where, err),
        });
      try {
        addResource(used, toResource(podRequests(other, { onInvalid, useStatusResources: true })));
        for (const port of hostPorts(other)) usedPorts.add(port);
      } catch (err) {
        // An active pod that is not a Pod object (no spec): it cannot be weighed, and must not block this one.
        logger.warn('Ignoring an active pod that cannot be read', { pod: podKey(other), err: errorMessage(err) });
      }
    }

    const failures = fitsRequest(requested, otherPods.length, used, allocatable);
    if (!matchesAffinity) failures.push({ kind: 'predicate', name: Reason.NodeAffinity });
    const nodeName = pod.spec.nodeName ?? '';
    if (nodeName !== '' && nodeName !== node.metadata.name) failures.push({ kind: 'predicate', name: Reason.NodeName });
    if (hostPorts(pod).some((port) => usedPorts.conflicts(port))) failures.push({ kind: 'predicate', name: Reason.NodePorts });
    // Only NoExecute taints matter to the kubelet, and not for static pods (they cannot be rescheduled).
    if (!isStaticPod(pod) && findUntoleratedTaint(node.spec?.taints, pod.spec.tolerations, (t) => t.effect === 'NoExecute') !== undefined) {
      failures.push({ kind: 'predicate', name: Reason.TaintToleration });
    }
    return failures;
  };

  return neverThrows(logger, ({ pod, otherPods }) => {
    let node: Node | undefined;
    try {
      node = options.getNode();
    } catch (err) {
      logger.error('Cannot get Node info', { err: errorMessage(err) });
    }
    if (node === undefined) return refuse(Reason.InvalidNodeInfo, ADMISSION_MESSAGES[Reason.InvalidNodeInfo]);

    // Whatever the node's label says, upstream compares the pod's label with the kubelet's own OS.
    const osLabel = pod.metadata.labels?.[LABEL_OS_STABLE];
    if (osLabel !== undefined && osLabel !== goos) {
      return refuse(Reason.PodOSSelectorNodeLabelDoesNotMatch, ADMISSION_MESSAGES[Reason.PodOSSelectorNodeLabelDoesNotMatch]);
    }
    if (pod.spec.os !== undefined && pod.spec.os.name !== goos) {
      return refuse(Reason.PodOSNotSupported, ADMISSION_MESSAGES[Reason.PodOSNotSupported]);
    }
    const policy = pod.spec.securityContext?.supplementalGroupsPolicy;
    if (policy === 'Strict' && node.status?.features?.supplementalGroupsPolicy !== true) {
      const message = ADMISSION_MESSAGES[Reason.SupplementalGroupsPolicyNotSupported];
      logger.info('Failed to admit pod', { pod: podKey(pod), message });
      return refuse(Reason.SupplementalGroupsPolicyNotSupported, message);
    }

    const allocatable = nodeAllocatable(node, (where, err) =>
      logger.warn('Ignoring a node allocatable quantity that does not parse', { err: describeInvalid(where, err) }),
    );
    const invalid: string[] = [];
    const requestedAmounts = podRequests(pod, {
      onInvalid: (where, err) => invalid.push(describeInvalid(where, err)),
      // Upstream removeMissingExtendedResources: cluster-level extended resources the node does not advertise are not the kubelet's to count.
      keep: (name) => !isExtendedResourceName(name) || allocatable.scalar.has(name),
    });
    const affinity = requiredNodeAffinity(pod);
    if (!affinity.ok) invalid.push(affinity.error);
    if (invalid.length > 0) {
      // Pod validation refuses such a pod before it gets here; should one slip through, say why.
      const message = `Failed to admit pod: invalid pod spec: ${invalid.join('; ')}`;
      logger.info('Failed to admit pod', { pod: podKey(pod), message });
      return refuse(Reason.UnexpectedAdmissionError, message);
    }

    let failures: readonly Failure[] = generalFilter(
      pod,
      node,
      otherPods,
      toResource(requestedAmounts),
      allocatable,
      affinity.ok && affinity.match(node),
    );
    let startAfter: Promise<void> | undefined;
    if (failures.length > 0 && options.admissionFailureHandler !== undefined) {
      const outcome = options.admissionFailureHandler.handleAdmissionFailure({ pod, otherPods }, failures);
      if ('error' in outcome) {
        logger.info('Failed to admit pod, unexpected error while attempting to recover from admission failure', {
          pod: podKey(pod),
          err: outcome.error,
        });
        return refuse(Reason.UnexpectedAdmissionError, UNEXPECTED_ADMISSION_FAILURE_PREFIX + outcome.error);
      }
      ({ failures, startAfter } = outcome);
    }
    const first = failures[0];
    if (first === undefined) return startAfter === undefined ? { admit: true } : { admit: true, startAfter };
    const result =
      first.kind === 'resource'
        ? refuse(insufficientResourceReason(first.resourceName), insufficientResourceMessage(first))
        : refuse(first.name, `Predicate ${first.name} failed: ${predicateFailureReason(first.name)}`);
    logger.debug('Predicate failed on Pod', { pod: podKey(pod), err: result.message });
    return result;
  });
}
