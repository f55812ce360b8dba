// Upstream's strings (pkg/kubelet/nodeshutdown, pkg/kubelet/events), spelled as the kubelet writes them.

/** The admission refusal of a pod while the node shuts down (upstream NodeShutdownNotAdmittedReason). */
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
/** The status of a pod killed for the shutdown: phase Failed with this reason and message. */
export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
/** The DisruptionTarget condition's reason on such a pod (v1.PodReasonTerminationByKubelet). */
export const TERMINATION_BY_KUBELET_REASON = 'TerminationByKubelet';
export const DISRUPTION_TARGET_CONDITION = 'DisruptionTarget';
/** The node event reason (kubeletevents.NodeShutdown) and its two messages. */
export const NODE_SHUTDOWN_EVENT_REASON = 'Shutdown';
export const SHUTDOWN_DETECTED_MESSAGE = 'Shutdown manager detected shutdown event';
export const SHUTDOWN_CANCELLED_MESSAGE = 'Shutdown manager detected shutdown cancellation';
/** What the Ready condition says while the node shuts down (ShutdownStatus's error). */
export const NODE_SHUTTING_DOWN_MESSAGE = 'node is shutting down';
/** The state file in the root dir: the last shutdown's start and end. */
export const GRACEFUL_NODE_SHUTDOWN_STATE_FILE = 'graceful_node_shutdown_state';

/** The inhibitor upstream takes: logind's Inhibit(what, who, why, mode). */
export const INHIBIT_WHAT = 'shutdown';
export const INHIBIT_WHO = 'kubelet';
export const INHIBIT_WHY = 'Kubelet needs time to handle node shutdown';
export const INHIBIT_MODE = 'delay';

/** Where upstream writes its InhibitDelayMaxSec override, and the file's name. */
export const LOGIND_CONF_DIR = '/etc/systemd/logind.conf.d';
export const KUBELET_LOGIND_CONF = '99-kubelet.conf';

/** Upstream scheduling.DefaultPriorityWhenNoDefaultClassExists and SystemCriticalPriority. */
export const DEFAULT_PRIORITY = 0;
export { SYSTEM_CRITICAL_PRIORITY } from '@kubelet-ts/api';

/** The metrics (GracefulNodeShutdownBasedOnPodPriority on): the last shutdown's start and end, in Unix seconds. */
export const GRACEFUL_SHUTDOWN_START_TIME_METRIC = 'kubelet_graceful_shutdown_start_time_seconds';
export const GRACEFUL_SHUTDOWN_END_TIME_METRIC = 'kubelet_graceful_shutdown_end_time_seconds';
