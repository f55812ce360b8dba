import type { Container, ContainerPort, LifecycleHandler, Pod } from '@kubelet-ts/api';
import { ContainerPortSchema, LifecycleHandlerSchema } from '@kubelet-ts/api';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_PORTS_ANNOTATION,
  CONTAINER_PRE_STOP_HANDLER_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION,
  CONTAINER_TYPE_ANNOTATION,
  ContainerType,
  KUBERNETES_CONTAINER_NAME_LABEL,
  KUBERNETES_POD_NAME_LABEL,
  KUBERNETES_POD_NAMESPACE_LABEL,
  KUBERNETES_POD_UID_LABEL,
  POD_DELETION_GRACE_PERIOD_ANNOTATION,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  hashContainer,
} from '@kubelet-ts/container-runtime';
import { goJson } from '@kubelet-ts/common';

// The kuberuntime encoding of a pod and its containers onto CRI labels and annotations (upstream
// kuberuntime/labels.go); the names are the shared contract of @kubelet-ts/container-runtime.

/** Sandbox labels: the pod's labels plus name, namespace and UID (which win over the pod's own). */
export function newPodLabels(pod: Pod): Record<string, string> {
  return {
    ...(pod.metadata.labels ?? {}),
    [KUBERNETES_POD_NAME_LABEL]: pod.metadata.name,
    [KUBERNETES_POD_NAMESPACE_LABEL]: pod.metadata.namespace,
    [KUBERNETES_POD_UID_LABEL]: pod.metadata.uid,
  };
}

/** Sandbox annotations: the pod's annotations. */
export function newPodAnnotations(pod: Pod): Record<string, string> {
  return { ...(pod.metadata.annotations ?? {}) };
}

/** Container labels: the pod's name, namespace, UID and the container's name (not the pod's labels). */
export function newContainerLabels(container: Container, pod: Pod): Record<string, string> {
  return {
    [KUBERNETES_POD_NAME_LABEL]: pod.metadata.name,
    [KUBERNETES_POD_NAMESPACE_LABEL]: pod.metadata.namespace,
    [KUBERNETES_POD_UID_LABEL]: pod.metadata.uid,
    [KUBERNETES_CONTAINER_NAME_LABEL]: container.name,
  };
}

/** Container annotations: what the kubelet needs back after a restart to manage the container without its spec. */
export function newContainerAnnotations(container: Container, pod: Pod, restartCount: number): Record<string, string> {
  const annotations: Record<string, string> = {
    [CONTAINER_HASH_ANNOTATION]: hashContainer(container),
    [CONTAINER_RESTART_COUNT_ANNOTATION]: String(restartCount),
    [CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION]: container.terminationMessagePath ?? '',
    [CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION]: container.terminationMessagePolicy ?? '',
  };
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    annotations[POD_DELETION_GRACE_PERIOD_ANNOTATION] = String(pod.metadata.deletionGracePeriodSeconds);
  }
  if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION] = String(pod.spec.terminationGracePeriodSeconds);
  }
  if (container.lifecycle?.preStop !== undefined) {
    annotations[CONTAINER_PRE_STOP_HANDLER_ANNOTATION] = goJson(goLifecycleHandler(container.lifecycle.preStop));
  }
  if (container.ports !== undefined && container.ports.length > 0) {
    annotations[CONTAINER_PORTS_ANNOTATION] = goJson(container.ports.map(goContainerPort));
  }
  if ((pod.spec.initContainers ?? []).some((c) => c.name === container.name)) annotations[CONTAINER_TYPE_ANNOTATION] = ContainerType.Init;
  else if (pod.spec.containers.some((c) => c.name === container.name)) annotations[CONTAINER_TYPE_ANNOTATION] = ContainerType.Container;
  else if ((pod.spec.ephemeralContainers ?? []).some((c) => c.name === container.name)) {
    annotations[CONTAINER_TYPE_ANNOTATION] = ContainerType.Ephemeral;
  }
  return annotations;
}

/** What a sandbox's labels say about its pod. */
export interface SandboxLabelInfo {
  podName: string;
  podNamespace: string;
  podUID: string;
  /** The pod's own labels (without the three kubelet labels). */
  labels: Record<string, string>;
}

/** Decodes sandbox labels (upstream getPodSandboxInfoFromLabels); missing labels decode as ''. */
export function decodeSandboxLabels(labels: Record<string, string> | undefined): SandboxLabelInfo {
  const all = labels ?? {};
  const own: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) {
    if (k !== KUBERNETES_POD_NAME_LABEL && k !== KUBERNETES_POD_NAMESPACE_LABEL && k !== KUBERNETES_POD_UID_LABEL) own[k] = v;
  }
  return {
    podName: all[KUBERNETES_POD_NAME_LABEL] ?? '',
    podNamespace: all[KUBERNETES_POD_NAMESPACE_LABEL] ?? '',
    podUID: all[KUBERNETES_POD_UID_LABEL] ?? '',
    labels: own,
  };
}

export interface ContainerLabelInfo {
  podName: string;
  podNamespace: string;
  podUID: string;
  containerName: string;
}

/** Decodes container labels (upstream getContainerInfoFromLabels); missing labels decode as ''. */
export function decodeContainerLabels(labels: Record<string, string> | undefined): ContainerLabelInfo {
  const all = labels ?? {};
  return {
    podName: all[KUBERNETES_POD_NAME_LABEL] ?? '',
    podNamespace: all[KUBERNETES_POD_NAMESPACE_LABEL] ?? '',
    podUID: all[KUBERNETES_POD_UID_LABEL] ?? '',
    containerName: all[KUBERNETES_CONTAINER_NAME_LABEL] ?? '',
  };
}

export interface ContainerAnnotationInfo {
  /** Hex spec hash; '' when missing. */
  hash: string;
  restartCount: number;
  podDeletionGracePeriodSeconds?: number;
  podTerminationGracePeriodSeconds?: number;
  terminationMessagePath: string;
  terminationMessagePolicy: string;
  preStopHandler?: LifecycleHandler;
  containerPorts?: ContainerPort[];
  containerType?: string;
}

/**
 * Decodes container annotations (upstream getContainerInfoFromAnnotations). Malformed values are
 * treated as missing (restart count 0, no grace period, no handler), as upstream logs and goes on.
 */
export function decodeContainerAnnotations(annotations: Record<string, string> | undefined): ContainerAnnotationInfo {
  const all = annotations ?? {};
  const info: ContainerAnnotationInfo = {
    hash: all[CONTAINER_HASH_ANNOTATION] ?? '',
    restartCount: parseIntOr(all[CONTAINER_RESTART_COUNT_ANNOTATION]) ?? 0,
    terminationMessagePath: all[CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION] ?? '',
    terminationMessagePolicy: all[CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION] ?? '',
  };
  const deletion = parseIntOr(all[POD_DELETION_GRACE_PERIOD_ANNOTATION]);
  if (deletion !== undefined) info.podDeletionGracePeriodSeconds = deletion;
  const termination = parseIntOr(all[POD_TERMINATION_GRACE_PERIOD_ANNOTATION]);
  if (termination !== undefined) info.podTerminationGracePeriodSeconds = termination;
  // Checked against the API schemas as upstream's json.Unmarshal into v1.LifecycleHandler / []v1.ContainerPort
  // checks types: a runtime's junk (`{"exec":null}`) is no handler at all instead of a hook that throws.
  const preStop = parseJson(all[CONTAINER_PRE_STOP_HANDLER_ANNOTATION]);
  const handler = preStop === undefined ? undefined : LifecycleHandlerSchema.safeParse(preStop);
  if (handler?.success === true) info.preStopHandler = handler.data;
  const ports = parseJson(all[CONTAINER_PORTS_ANNOTATION]);
  if (Array.isArray(ports)) {
    const parsed = ports.map((p) => ContainerPortSchema.safeParse(p));
    if (parsed.every((p) => p.success)) info.containerPorts = parsed.map((p) => p.data as ContainerPort);
  }
  const type = all[CONTAINER_TYPE_ANNOTATION];
  if (type !== undefined) info.containerType = type;
  return info;
}

function parseIntOr(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  return Number.parseInt(value, 10);
}

function parseJson(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

// What upstream's json.Marshal writes for these annotations: Go's field order, omitempty fields left
// out when empty, Go's string escaping; so the upstream kubelet and kubelet-ts write the same bytes.
const orUndefined = <T>(value: T | undefined | null | '' | 0): T | undefined =>
  value === '' || value === 0 || value === null ? undefined : (value ?? undefined);
const nonEmpty = <T>(list: readonly T[] | undefined | null): readonly T[] | undefined =>
  list === undefined || list === null || list.length === 0 ? undefined : list;

function goLifecycleHandler(h: LifecycleHandler): unknown {
  return {
    exec: h.exec === undefined ? undefined : { command: nonEmpty(h.exec.command) },
    httpGet:
      h.httpGet === undefined
        ? undefined
        : {
            path: orUndefined(h.httpGet.path),
            port: h.httpGet.port,
            host: orUndefined(h.httpGet.host),
            scheme: orUndefined(h.httpGet.scheme),
            httpHeaders: nonEmpty(h.httpGet.httpHeaders?.map((x) => ({ name: x.name, value: x.value }))),
          },
    tcpSocket: h.tcpSocket === undefined ? undefined : { port: h.tcpSocket.port, host: orUndefined(h.tcpSocket.host) },
    sleep: h.sleep === undefined ? undefined : { seconds: h.sleep.seconds },
  };
}

function goContainerPort(p: ContainerPort): unknown {
  return {
    name: orUndefined(p.name),
    hostPort: orUndefined(p.hostPort),
    containerPort: p.containerPort,
    protocol: orUndefined(p.protocol),
    hostIP: orUndefined(p.hostIP),
  };
}
