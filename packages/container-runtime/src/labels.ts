// Label and annotation names exactly as upstream (pkg/kubelet/types/labels.go, kuberuntime/labels.go):
// other tools (crictl, log collectors, stats) and a kubelet restarted over running containers read them.

export const KUBERNETES_POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const KUBERNETES_POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const KUBERNETES_POD_UID_LABEL = 'io.kubernetes.pod.uid';
export const KUBERNETES_CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';

export const POD_DELETION_GRACE_PERIOD_ANNOTATION = 'io.kubernetes.pod.deletionGracePeriod';
export const POD_TERMINATION_GRACE_PERIOD_ANNOTATION = 'io.kubernetes.pod.terminationGracePeriod';
export const CONTAINER_HASH_ANNOTATION = 'io.kubernetes.container.hash';
export const CONTAINER_RESTART_COUNT_ANNOTATION = 'io.kubernetes.container.restartCount';
export const CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
export const CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION = 'io.kubernetes.container.terminationMessagePolicy';
export const CONTAINER_PRE_STOP_HANDLER_ANNOTATION = 'io.kubernetes.container.preStopHandler';
export const CONTAINER_PORTS_ANNOTATION = 'io.kubernetes.container.ports';
export const CONTAINER_TYPE_ANNOTATION = 'io.kubernetes.container.type';

/** Values of the container type annotation. */
export const ContainerType = { Init: 'init', Container: 'container', Ephemeral: 'ephemeral' } as const;
export type ContainerType = (typeof ContainerType)[keyof typeof ContainerType];
