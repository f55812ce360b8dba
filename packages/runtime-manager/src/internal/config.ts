import path from 'node:path';
import type { Container, Pod, SecurityContext } from '@kubelet-ts/api';
import { expandContainerCommandAndArgs as expandCommandAndArgs } from '@kubelet-ts/api';
import type {
  ContainerConfig,
  LinuxContainerSecurityContext,
  Mount,
  NamespaceOption,
  PodSandboxConfig,
  PortMapping,
  SecurityProfile,
} from '@kubelet-ts/cri-client';
import { newContainerAnnotations, newContainerLabels, newPodAnnotations, newPodLabels } from '../labels.js';
import type { ContainerMount, RunContainerOptions } from '@kubelet-ts/container-runtime';
import { linuxContainerResources } from './resources.js';

/** `<podLogsDir>/<namespace>_<name>_<uid>` (upstream BuildPodLogsDirectory). */
export function podLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  return path.join(podLogsDir, `${namespace}_${name}_${uid}`);
}

/** `<container>/<restartCount>.log`, relative to the sandbox's log directory (upstream buildContainerLogsPath). */
export function containerLogPath(containerName: string, restartCount: number): string {
  return path.join(containerName, `${restartCount}.log`);
}

/** Upstream namespace options: hostNetwork/hostIPC/hostPID → NODE, shareProcessNamespace → POD pid, else per container. */
export function namespacesForPod(pod: Pod): NamespaceOption {
  return {
    network: pod.spec.hostNetwork === true ? 'NODE' : 'POD',
    ipc: pod.spec.hostIPC === true ? 'NODE' : 'POD',
    pid: pod.spec.hostPID === true ? 'NODE' : pod.spec.shareProcessNamespace === true ? 'POD' : 'CONTAINER',
  };
}

/** The pod's hostname: spec.hostname or the pod name, cut to 63 characters (upstream GeneratePodHostNameAndDomain). */
export function podHostname(pod: Pod): string {
  const name = pod.spec.hostname !== undefined && pod.spec.hostname !== '' ? pod.spec.hostname : pod.metadata.name;
  if (name.length <= 63) return name;
  return name.slice(0, 63).replace(/[-.]+$/, '');
}

function hasPrivilegedContainer(pod: Pod): boolean {
  // Upstream HasPrivilegedContainer visits every container type, ephemeral ones too.
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])].some(
    (c) => c.securityContext?.privileged === true,
  );
}

function protocolOf(protocol: string | undefined): 'TCP' | 'UDP' | 'SCTP' {
  return protocol === 'UDP' ? 'UDP' : protocol === 'SCTP' ? 'SCTP' : 'TCP';
}

export interface SandboxConfigInput {
  pod: Pod;
  attempt: number;
  podLogsDir: string;
  dns: { servers: string[]; searches: string[]; options: string[] };
  cgroupParent: string | undefined;
}

/** Upstream generatePodSandboxConfig + generatePodSandboxLinuxConfig. */
export function generatePodSandboxConfig(input: SandboxConfigInput): PodSandboxConfig {
  const { pod } = input;
  const portMappings: PortMapping[] = [];
  for (const c of pod.spec.containers) {
    for (const p of c.ports ?? []) {
      // Only host ports need a mapping (the runtime skips hostPort 0 anyway).
      if (p.hostPort === undefined || p.hostPort === 0) continue;
      portMappings.push({ protocol: protocolOf(p.protocol), containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIP ?? '' });
    }
  }
  const sc = pod.spec.securityContext;
  const sysctls: Record<string, string> = {};
  // runc wants dots as separators (upstream ConvertPodSysctlsVariableToDotsSeparator).
  for (const s of sc?.sysctls ?? []) sysctls[s.name.replaceAll('/', '.')] = s.value;
  const supplementalGroups = [...(sc?.fsGroup === undefined ? [] : [sc.fsGroup]), ...(sc?.supplementalGroups ?? [])];
  return {
    metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid, attempt: input.attempt },
    // Host-network sandboxes must not set a hostname (the runtime refuses it).
    hostname: pod.spec.hostNetwork === true ? '' : podHostname(pod),
    logDirectory: podLogsDirectory(input.podLogsDir, pod.metadata.namespace, pod.metadata.name, pod.metadata.uid),
    dnsConfig: { servers: input.dns.servers, searches: input.dns.searches, options: input.dns.options },
    portMappings,
    labels: newPodLabels(pod),
    annotations: newPodAnnotations(pod),
    linux: {
      cgroupParent: input.cgroupParent ?? '',
      sysctls,
      securityContext: {
        namespaceOptions: namespacesForPod(pod),
        privileged: hasPrivilegedContainer(pod),
        // Upstream runs every sandbox with the runtime's default seccomp profile.
        seccomp: { profileType: 'RuntimeDefault' },
        ...(sc?.runAsUser === undefined ? {} : { runAsUser: { value: sc.runAsUser } }),
        ...(sc?.runAsGroup === undefined ? {} : { runAsGroup: { value: sc.runAsGroup } }),
        ...(supplementalGroups.length === 0 ? {} : { supplementalGroups }),
        // Upstream convertToRuntimeSupplementalGroupsPolicy: unset is Merge (the proto's 0).
        ...(sc?.supplementalGroupsPolicy === 'Strict' ? { supplementalGroupsPolicy: 'Strict' as const } : {}),
        ...(sc?.seLinuxOptions === undefined ? {} : { selinuxOptions: { ...sc.seLinuxOptions } }),
      },
    },
  };
}

/** Upstream DetermineEffectiveSecurityContext: the container's settings over the pod's. */
export function effectiveSecurityContext(pod: Pod, container: Container): SecurityContext {
  const podSc = pod.spec.securityContext;
  const sc: SecurityContext = { ...(container.securityContext ?? {}) };
  if (sc.runAsUser === undefined && podSc?.runAsUser !== undefined) sc.runAsUser = podSc.runAsUser;
  if (sc.runAsGroup === undefined && podSc?.runAsGroup !== undefined) sc.runAsGroup = podSc.runAsGroup;
  if (sc.runAsNonRoot === undefined && podSc?.runAsNonRoot !== undefined) sc.runAsNonRoot = podSc.runAsNonRoot;
  if (sc.seLinuxOptions === undefined && podSc?.seLinuxOptions !== undefined) sc.seLinuxOptions = podSc.seLinuxOptions;
  if (sc.seccompProfile === undefined && podSc?.seccompProfile !== undefined) sc.seccompProfile = podSc.seccompProfile;
  return sc;
}

/** Upstream getSeccompProfile: the container's profile, else the pod's, else the kubelet's default. */
function seccompProfile(sc: SecurityContext, seccompDefault: boolean): SecurityProfile {
  const profile = sc.seccompProfile;
  if (profile === undefined) return { profileType: seccompDefault ? 'RuntimeDefault' : 'Unconfined' };
  if (profile.type === 'Unconfined') return { profileType: 'Unconfined' };
  if (profile.type === 'RuntimeDefault') return { profileType: 'RuntimeDefault' };
  return { profileType: 'Localhost', localhostRef: profile.localhostProfile ?? '' };
}

/** The user an image runs as (upstream getImageUser): a numeric UID, else a user name; neither means root. */
export interface ImageUser {
  uid: number | undefined;
  username: string;
}

/**
 * Upstream verifyRunAsNonRoot: with runAsNonRoot, refuse runAsUser 0, an image running as root,
 * or an image user given by name (it cannot be checked). Returns the error message, or ''.
 */
export function verifyRunAsNonRoot(pod: Pod, container: Container, user: ImageUser): string {
  const sc = effectiveSecurityContext(pod, container);
  if (sc.runAsNonRoot !== true) return '';
  const podName = JSON.stringify(`${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`);
  if (sc.runAsUser !== undefined) {
    return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy (pod: ${podName}, container: ${container.name})` : '';
  }
  if (user.uid === 0) return `container has runAsNonRoot and image will run as root (pod: ${podName}, container: ${container.name})`;
  if (user.uid === undefined && user.username !== '') {
    return `container has runAsNonRoot and image has non-numeric user (${user.username}), cannot verify user is non-root (pod: ${podName}, container: ${container.name})`;
  }
  return '';
}

/** Upstream determineEffectiveSecurityContext → CRI LinuxContainerSecurityContext. */
export function containerSecurityContext(
  pod: Pod,
  container: Container,
  imageUser?: ImageUser,
  seccompDefault = false,
): LinuxContainerSecurityContext {
  const sc = effectiveSecurityContext(pod, container);
  const podSc = pod.spec.securityContext;
  const supplementalGroups = [...(podSc?.fsGroup === undefined ? [] : [podSc.fsGroup]), ...(podSc?.supplementalGroups ?? [])];
  return {
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    // Capability names pass through as written in the spec; the runtime adds the CAP_ prefix.
    capabilities: { addCapabilities: [...(sc.capabilities?.add ?? [])], dropCapabilities: [...(sc.capabilities?.drop ?? [])] },
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    namespaceOptions: namespacesForPod(pod),
    seccomp: seccompProfile(sc, seccompDefault),
    // No runAsUser in the spec: the image's user, as upstream passes it on.
    ...(sc.runAsUser !== undefined
      ? { runAsUser: { value: sc.runAsUser } }
      : imageUser?.uid !== undefined
        ? { runAsUser: { value: imageUser.uid } }
        : imageUser !== undefined && imageUser.username !== ''
          ? { runAsUsername: imageUser.username }
          : {}),
    ...(sc.runAsGroup === undefined ? {} : { runAsGroup: { value: sc.runAsGroup } }),
    ...(supplementalGroups.length === 0 ? {} : { supplementalGroups }),
    ...(podSc?.supplementalGroupsPolicy === 'Strict' ? { supplementalGroupsPolicy: 'Strict' as const } : {}),
    ...(sc.seLinuxOptions === undefined ? {} : { selinuxOptions: { ...sc.seLinuxOptions } }),
  };
}

function propagationOf(m: ContainerMount): Mount['propagation'] {
  if (m.propagation === 'bidirectional') return 'PROPAGATION_BIDIRECTIONAL';
  if (m.propagation === 'host-to-container') return 'PROPAGATION_HOST_TO_CONTAINER';
  return 'PROPAGATION_PRIVATE';
}

export interface ContainerConfigInput {
  pod: Pod;
  container: Container;
  imageRef: string;
  restartCount: number;
  options: RunContainerOptions;
  runtimeHandler: string | undefined;
  memoryCapacityBytes: number;
  cpuCfsQuota: boolean;
  /** No profile in the spec means RuntimeDefault rather than Unconfined (seccompDefault). */
  seccompDefault?: boolean;
  /** The CPU manager's cpuset for the container, when it sets one. */
  cpusetCpus?: string | undefined;
  /** The memory manager's NUMA nodes for the container, when it sets them. */
  cpusetMems?: string | undefined;
  imageUser?: ImageUser;
  /** An ephemeral container's target container ID: its PID namespace is joined. */
  targetId?: string;
}

/** Upstream generateContainerConfig + generateLinuxContainerConfig. */
export function generateContainerConfig(input: ContainerConfigInput): ContainerConfig {
  const { pod, container, options } = input;
  const { command, args } = expandCommandAndArgs(container.command, container.args, options.env);
  const resources = linuxContainerResources(pod, container, input.memoryCapacityBytes, input.cpuCfsQuota);
  return {
    metadata: { name: container.name, attempt: input.restartCount },
    image: {
      image: input.imageRef,
      userSpecifiedImage: container.image,
      ...(input.runtimeHandler === undefined ? {} : { runtimeHandler: input.runtimeHandler }),
    },
    command,
    args,
    workingDir: container.workingDir ?? '',
    envs: options.env.map((e) => ({ key: e.name, value: e.value })),
    mounts: options.mounts.map((m) => ({
      containerPath: m.containerPath,
      hostPath: m.hostPath,
      readonly: m.readOnly,
      selinuxRelabel: m.selinuxRelabel === true,
      propagation: propagationOf(m),
    })),
    labels: newContainerLabels(container, pod),
    annotations: newContainerAnnotations(container, pod, input.restartCount),
    logPath: containerLogPath(container.name, input.restartCount),
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    linux: {
      resources: {
        cpuShares: resources.cpuShares,
        cpuQuota: resources.cpuQuota,
        cpuPeriod: resources.cpuPeriod,
        memoryLimitInBytes: resources.memoryLimitInBytes,
        oomScoreAdj: resources.oomScoreAdj,
        ...(input.cpusetCpus === undefined || input.cpusetCpus === '' ? {} : { cpusetCpus: input.cpusetCpus }),
        ...(input.cpusetMems === undefined || input.cpusetMems === '' ? {} : { cpusetMems: input.cpusetMems }),
      },
      securityContext: withTargetNamespace(
        containerSecurityContext(pod, container, input.imageUser, input.seccompDefault === true),
        input.targetId,
      ),
    },
  };
}

/**
 * Upstream generateLinuxContainerConfig: a target container's PID namespace (NamespaceMode TARGET)
 * replaces the container's own; a pod-wide or host PID namespace (shareProcessNamespace, hostPID) stays.
 */
function withTargetNamespace(sc: LinuxContainerSecurityContext, targetId: string | undefined): LinuxContainerSecurityContext {
  if (targetId === undefined || sc.namespaceOptions?.pid !== 'CONTAINER') return sc;
  return { ...sc, namespaceOptions: { ...sc.namespaceOptions, pid: 'TARGET', targetId } };
}
