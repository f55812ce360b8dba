import type { Node, Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';

/** Upstream lifecycle.PodAdmitAttributes: the pod to admit and the pods already active on the node. */
export interface PodAdmitAttributes {
  pod: Pod;
  otherPods: readonly Pod[];
}

/** Upstream lifecycle.PodAdmitResult: whether a new pod may start here, and why not. */
export interface PodAdmitResult {
  admit: boolean;
  /** A CamelCase reason (`OutOfcpu`, `NodeAffinity`, `SysctlForbidden`…) when refused. */
  reason?: string;
  message?: string;
  /**
   * An admitted pod starts once this settles: the kills of the pods preempted for it (upstream
   * blocks HandlePodAdditions on them; kubelet-ts holds back only this pod). Never rejects.
   */
  startAfter?: Promise<void>;
}

/** Upstream lifecycle.PredicateFailureReason: one failed check of the predicate handler. */
export type AdmissionFailure =
  /** Upstream InsufficientResourceError: `requested` more than `capacity - used` of `resourceName`. */
  | { kind: 'resource'; resourceName: string; requested: number; used: number; capacity: number }
  /** Upstream PredicateFailureError: a scheduler filter by name (`NodeAffinity`, `NodePorts`…). */
  | { kind: 'predicate'; name: string };

/** What an admission failure handler made of the failures: those left (none = admit), or an error. */
export type AdmissionFailureOutcome = { failures: readonly AdmissionFailure[]; startAfter?: Promise<void> } | { error: string };

/** Upstream lifecycle.AdmissionFailureHandler: a last chance for a pod the predicates refused. */
export interface AdmissionFailureHandler {
  handleAdmissionFailure(attrs: PodAdmitAttributes, failures: readonly AdmissionFailure[]): AdmissionFailureOutcome;
}

/**
 * Upstream lifecycle.PodAdmitHandler. Structurally the `PodAdmitHandler` of @kubelet-ts/pod-lifecycle
 * (whose framework prefixes a refusal's message with "Pod was rejected: "). Never throws.
 */
export interface PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult;
}

export interface PredicateAdmitHandlerOptions {
  /**
   * The node as the kubelet sees it (upstream getNodeAnyWay): labels, taints, `status.allocatable`
   * with `pods`. undefined or a throw refuses the pod with `InvalidNodeInfo`.
   */
  getNode: () => Node | undefined;
  /** Go's runtime.GOOS of the kubelet: what `spec.os.name` and the `kubernetes.io/os` pod label must be. Default `linux`. */
  os?: string;
  /** Upstream's admissionFailureHandler: the critical pod preemption of {@link createCriticalPodAdmissionHandler}. Default: none, failures stand. */
  admissionFailureHandler?: AdmissionFailureHandler;
  logger?: Logger;
}

export interface SysctlAdmitHandlerOptions {
  /** The kubelet's `allowedUnsafeSysctls`: names or patterns ending in `*`, allowed besides the safe set. */
  allowedUnsafeSysctls?: readonly string[];
  /**
   * The node's kernel version (`uname -r`, NodeSystemInfo.kernelVersion): safe sysctls namespaced
   * only by newer kernels are left out of the safe set below their version, and all of them when unknown.
   */
  kernelVersion?: string;
  logger?: Logger;
}
