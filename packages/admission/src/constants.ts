import { EventReason, Reason } from '@kubelet-ts/api';

/** Upstream InsufficientResourcePrefix: the reason of a resource that did not fit is this + its name (`OutOfcpu`). */
export const INSUFFICIENT_RESOURCE_PREFIX = 'OutOf';

/**
 * The reason (PredicateFailureError.PredicateDesc) of each scheduler filter the kubelet runs, by
 * filter name (the refusal's reason). The refusal's message is "Predicate <name> failed: <reason>".
 */
export const PREDICATE_FAILURE_REASONS = {
  [Reason.NodeAffinity]: "node(s) didn't match Pod's node affinity/selector",
  [Reason.NodeName]: "node(s) didn't match the requested node name",
  [Reason.NodePorts]: "node(s) didn't have free ports for the requested pod ports",
  [Reason.TaintToleration]: "node(s) had taints that the pod didn't tolerate",
} as const;

/** The messages of the refusals that are not a scheduler filter (pkg/kubelet/lifecycle predicate.go). */
export const ADMISSION_MESSAGES = {
  [Reason.InvalidNodeInfo]: 'Kubelet cannot get node info.',
  [Reason.PodOSSelectorNodeLabelDoesNotMatch]: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
  [Reason.PodOSNotSupported]: "Failed to admit pod as the OS field doesn't match node OS",
  [Reason.SupplementalGroupsPolicyNotSupported]: 'SupplementalGroupsPolicy=Strict is not supported in this node',
} as const;

/**
 * Upstream pkg/kubelet/sysctl safe_sysctls.go (v1.34): the sysctls every pod may set, with the
 * kernel version that namespaced the ones that were not always namespaced (pkg/util/kernel).
 */
export const SAFE_SYSCTLS: readonly { readonly name: string; readonly minKernelVersion?: string }[] = [
  { name: 'kernel.shm_rmid_forced' },
  { name: 'net.ipv4.ip_local_port_range' },
  { name: 'net.ipv4.tcp_syncookies' },
  { name: 'net.ipv4.ping_group_range' },
  { name: 'net.ipv4.ip_unprivileged_port_start' },
  { name: 'net.ipv4.ip_local_reserved_ports', minKernelVersion: '3.16' },
  { name: 'net.ipv4.tcp_keepalive_time', minKernelVersion: '4.5' },
  { name: 'net.ipv4.tcp_fin_timeout', minKernelVersion: '4.6' },
  { name: 'net.ipv4.tcp_keepalive_intvl', minKernelVersion: '4.5' },
  { name: 'net.ipv4.tcp_keepalive_probes', minKernelVersion: '4.5' },
  { name: 'net.ipv4.tcp_rmem', minKernelVersion: '4.15' },
  { name: 'net.ipv4.tcp_wmem', minKernelVersion: '4.15' },
];

/** Upstream apivalidation.SysctlMaxLength. */
export const SYSCTL_MAX_LENGTH = 253;

/** Upstream policyvalidation.SysctlContainSlashPatternFmt: a sysctl name or pattern, '.' or '/' separated, `*` last. */
export const SYSCTL_PATTERN_FORMAT = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]';

/** Upstream events.PreemptContainer: the reason of a pod preempted for a critical pod (its status and event). */
export const PREEMPTION_REASON = EventReason.PreemptContainer;
/** The message of a preempted pod's status and event (upstream preemption.message). */
export const PREEMPTION_MESSAGE = 'Preempted in order to admit critical pod';
/** The message of a preempted pod's DisruptionTarget condition. */
export const PREEMPTION_DISRUPTION_MESSAGE = 'Pod was preempted by Kubelet to accommodate a critical pod.';
/** Upstream v1.PodReasonTerminationByKubelet: the DisruptionTarget condition's reason. */
export const TERMINATION_BY_KUBELET_REASON = Reason.TerminationByKubelet;
/** The message prefix of a refusal the admission failure handler could not recover from (upstream predicate Admit). */
export const UNEXPECTED_ADMISSION_FAILURE_PREFIX = 'Unexpected error while attempting to recover from admission failure: ';
