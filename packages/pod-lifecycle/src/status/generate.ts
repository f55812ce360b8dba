// Upstream kubelet_pods.go: generateAPIPodStatus, getPhase, convertToAPIContainerStatuses (regular,
// init and ephemeral containers).
import { isIPv4, isIPv6 } from 'node:net';
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from '@kubelet-ts/api';
import { formatTime, getPodQOSClass, isRestartableInitContainer, isStaticPod } from '@kubelet-ts/api';
import { shouldContainerBeRestarted } from '@kubelet-ts/container-runtime';
import type { RuntimeContainerStatus, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { ContainerStartFailure } from '../reason-cache.js';
import {
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  hasAnyRegularContainerStarted,
  KUBELET_CONDITION_TYPES,
  updateLastTransitionTimes,
} from '@kubelet-ts/status-manager';
import { generatePodReadyToStartContainersCondition } from './ready-to-start.js';

/** Readiness of a running container, from the readiness prober (wired later). */
export interface ReadinessProvider {
  /** `ref` names the pod and container, so that a prober can tell a container without a readiness probe (ready) from one not probed yet. */
  isReady(containerId: string, ref?: ContainerRef): boolean;
}

/** Which container of which pod a provider is asked about. */
export interface ContainerRef {
  pod: Pod;
  containerName: string;
}

/** Whether a running container has passed its startup probe (wired later). */
export interface StartupProvider {
  isStarted(containerId: string, ref?: ContainerRef): boolean;
}

/** Without a prober every running container is ready (upstream: no readiness probe → ready). */
export const alwaysReady: ReadinessProvider = { isReady: () => true };
/** Without a prober every running container has started. */
export const alwaysStarted: StartupProvider = { isStarted: () => true };

export interface GeneratePodStatusInput {
  pod: Pod;
  runtimeStatus: RuntimePodStatus;
  /** The status the kubelet last generated for this pod (else the pod's own `status` is used). */
  previous?: PodStatus;
  /** The last start failure of a container of this pod, if any. */
  reasons?: (containerName: string) => ContainerStartFailure | undefined;
  readiness?: ReadinessProvider;
  startup?: StartupProvider;
  /** The node's IPs, primary first. */
  nodeIPs?: readonly string[];
  /** Prefix of container IDs: `<runtimeName>://<id>`. Default "containerd". */
  runtimeName?: string;
  /** True once the pod is being torn down for good (deleted, or reached a terminal phase). */
  podIsTerminal?: boolean;
  /** Now, in ms: condition transition times and the start time of a new pod. */
  now: number;
  /** An internal module wants the pod evicted (upstream PodSyncHandler.ShouldEvict): phase Failed with this reason. */
  evict?: { reason: string; message: string; condition?: PodCondition };
}

/** Upstream activeDeadlineHandler's reason and message. */
export const DEADLINE_EXCEEDED = {
  reason: 'DeadlineExceeded',
  message: 'Pod was active on the node longer than the specified deadline',
} as const;

/** Upstream activeDeadlineHandler.pastActiveDeadline: startTime + activeDeadlineSeconds has passed. */
export function pastActiveDeadline(pod: Pod, startTime: string | undefined, now: number): boolean {
  const deadline = pod.spec.activeDeadlineSeconds;
  if (deadline === undefined || startTime === undefined) return false;
  const started = Date.parse(startTime);
  return Number.isFinite(started) && now - started >= deadline * 1000;
}

const CONTAINER_CREATING = 'ContainerCreating';
const POD_INITIALIZING = 'PodInitializing';
const STATUS_UNKNOWN = 'ContainerStatusUnknown';

function isTerminalPhase(phase: string | undefined): phase is 'Succeeded' | 'Failed' {
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Upstream getPhase: the pod phase from its container statuses (regular, init and sidecar). */
export function getPodPhase(
  pod: Pod,
  statuses: readonly ContainerStatus[],
  podIsTerminal: boolean,
): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  const spec = pod.spec;
  const find = (name: string): ContainerStatus | undefined => statuses.find((s) => s.name === name);
  let pendingInitialization = 0;
  let failedInitialization = 0;
  for (const c of spec.initContainers ?? []) {
    if (isRestartableInitContainer(c)) continue;
    const s = find(c.name);
    if (s === undefined || s.state?.running !== undefined) pendingInitialization++;
    else if (s.state?.terminated !== undefined) {
      if (s.state.terminated.exitCode !== 0) failedInitialization++;
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated !== undefined) {
        if (s.lastState.terminated.exitCode !== 0) failedInitialization++;
      } else pendingInitialization++;
    } else pendingInitialization++;
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.initContainers ?? []) {
    if (!isRestartableInitContainer(c)) continue;
    const s = find(c.name);
    if (s === undefined) unknown++;
    else if (s.state?.running !== undefined) {
      if (s.started !== true) pendingInitialization++;
      running++;
    } else if (s.state?.terminated !== undefined) {
      // terminated sidecars do not count for the phase
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated === undefined) {
        pendingInitialization++;
        waiting++;
      }
    } else {
      pendingInitialization++;
      unknown++;
    }
  }
  for (const c of spec.containers) {
    const s = find(c.name);
    if (s === undefined) unknown++;
    else if (s.state?.running !== undefined) running++;
    else if (s.state?.terminated !== undefined) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated !== undefined) stopped++;
      else waiting++;
    } else unknown++;
  }

  const restartPolicy = spec.restartPolicy ?? 'Always';
  if (failedInitialization > 0 && restartPolicy === 'Never') return 'Failed';
  if ((pendingInitialization > 0 && !hasAnyRegularContainerStarted(pod, statuses)) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    // Upstream does not yet give static pods a terminal phase here (TODO #116484).
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

function convertState(
  cs: RuntimeContainerStatus,
  containerID: string,
  old: ContainerStatus | undefined,
): { state: ContainerState; restartBump: boolean } {
  switch (cs.state) {
    case 'running':
      return { state: { running: cs.startedAt !== undefined ? { startedAt: formatTime(cs.startedAt) } : {} }, restartBump: false };
    case 'created':
      // created but not running is "waiting to be running"
      return { state: { waiting: {} }, restartBump: false };
    case 'exited':
      return {
        state: {
          terminated: {
            exitCode: cs.exitCode ?? 0,
            ...(cs.reason !== undefined && cs.reason !== '' ? { reason: cs.reason } : {}),
            ...(cs.message !== undefined && cs.message !== '' ? { message: cs.message } : {}),
            ...(cs.startedAt !== undefined ? { startedAt: formatTime(cs.startedAt) } : {}),
            ...(cs.finishedAt !== undefined ? { finishedAt: formatTime(cs.finishedAt) } : {}),
            containerID,
          },
        },
        restartBump: false,
      };
    default:
      if (old?.state?.running !== undefined) {
        // It ran and can no longer be found: report it stopped, not waiting (a run-once pod must not run twice).
        return {
          state: {
            terminated: {
              exitCode: 137,
              reason: STATUS_UNKNOWN,
              message: 'The container could not be located when the pod was terminated',
            },
          },
          restartBump: true,
        };
      }
      return { state: { waiting: {} }, restartBump: false };
  }
}

interface ConvertOptions {
  pod: Pod;
  runtimeStatus: RuntimePodStatus;
  previous: readonly ContainerStatus[];
  containers: readonly Container[];
  hasInitContainers: boolean;
  isInit: boolean;
  reasons: (name: string) => ContainerStartFailure | undefined;
  runtimeName: string;
}

/** Upstream convertToAPIContainerStatuses (without readiness: set afterwards, as the probe manager does). */
function convertToAPIContainerStatuses(o: ConvertOptions): ContainerStatus[] {
  const oldByName = new Map(o.previous.map((s) => [s.name, s]));
  const defaultWaiting: ContainerState = { waiting: { reason: o.hasInitContainers ? POD_INITIALIZING : CONTAINER_CREATING } };
  const statuses = new Map<string, ContainerStatus>();
  for (const c of o.containers) {
    let status: ContainerStatus = { name: c.name, state: defaultWaiting, ready: false, restartCount: 0, image: c.image, imageID: '' };
    const old = oldByName.get(c.name);
    if (old !== undefined) {
      if (old.state?.terminated !== undefined) status = structuredClone(old);
      else {
        status.restartCount = old.restartCount;
        if (old.lastState !== undefined) status.lastState = structuredClone(old.lastState);
      }
    }
    statuses.set(c.name, status);
  }

  // A container that used to run and vanished from the runtime: infer it terminated.
  for (const c of o.containers) {
    if (o.runtimeStatus.containers.some((cs) => cs.name === c.name)) continue;
    const old = oldByName.get(c.name);
    if (old === undefined || old.state?.terminated !== undefined || old.state?.running === undefined) continue;
    const status = statuses.get(c.name);
    if (status === undefined) continue;
    const isDefault = status.state?.waiting?.reason === defaultWaiting.waiting?.reason;
    if (!isDefault || status.lastState?.terminated !== undefined) continue;
    status.lastState = {
      terminated: {
        exitCode: 137,
        reason: STATUS_UNKNOWN,
        message: 'The container could not be located when the pod was deleted.  The container used to be Running',
      },
    };
    if (o.pod.metadata.deletionTimestamp === undefined) status.restartCount += 1;
  }

  // Newest first: the newest instance is the state, the one before it the lastState.
  const instances = [...o.runtimeStatus.containers].sort((a, b) => b.createdAt - a.createdAt);
  const seen = new Map<string, number>();
  for (const cs of instances) {
    const current = statuses.get(cs.name);
    if (current === undefined) continue;
    const count = seen.get(cs.name) ?? 0;
    if (count >= 2) continue;
    const containerID = `${o.runtimeName}://${cs.id}`;
    const converted = convertState(cs, containerID, oldByName.get(cs.name));
    if (count === 0) {
      const old = oldByName.get(cs.name);
      const next: ContainerStatus = {
        name: cs.name,
        state: converted.state,
        ready: false,
        restartCount: converted.restartBump && old !== undefined ? old.restartCount + 1 : cs.restartCount,
        image: cs.image,
        imageID: cs.imageRef,
        containerID,
      };
      statuses.set(cs.name, next);
    } else {
      current.lastState = converted.state;
    }
    seen.set(cs.name, count + 1);
  }

  // Containers that will be (re)started in the next sync are Waiting, with the reason of the last failure.
  for (const c of o.containers) {
    if (o.isInit) {
      const latest = o.runtimeStatus.containers.find((cs) => cs.name === c.name);
      if (latest?.state === 'exited' && latest.exitCode === 0) continue;
    }
    if (!shouldContainerBeRestarted(c, o.pod, o.runtimeStatus)) continue;
    const failure = o.reasons(c.name);
    if (failure === undefined) continue;
    const status = statuses.get(c.name);
    if (status === undefined) continue;
    if (status.state?.terminated !== undefined) status.lastState = status.state;
    status.state = { waiting: { reason: failure.reason, ...(failure.message !== '' ? { message: failure.message } : {}) } };
  }

  const out = o.containers.map((c) => statuses.get(c.name)).filter((s): s is ContainerStatus => s !== undefined);
  // Regular containers are listed by name (upstream SortedContainerStatuses); init containers in spec order.
  if (!o.isInit) out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/** Upstream sortPodIPs: one IP of the node's family first, then one of the other family. */
function sortPodIPs(ips: readonly string[], nodeIPs: readonly string[]): string[] {
  const primaryV4 = nodeIPs.length === 0 || isIPv4(nodeIPs[0] ?? '');
  const primary = ips.find((ip) => (primaryV4 ? isIPv4(ip) : isIPv6(ip)));
  const secondary = ips.find((ip) => (primaryV4 ? isIPv6(ip) : isIPv4(ip)));
  return [primary, secondary].filter((ip): ip is string => ip !== undefined);
}

/**
 * Upstream generateAPIPodStatus: the API PodStatus of a pod from its spec, the runtime's view,
 * the last start failures and readiness. Pure: the caller stores the result.
 */
export function generatePodStatus(input: GeneratePodStatusInput): PodStatus {
  const { pod, runtimeStatus } = input;
  const old: PodStatus = input.previous ?? pod.status ?? {};
  const apiStatus: PodStatus = pod.status ?? {};
  const readiness = input.readiness ?? alwaysReady;
  const startup = input.startup ?? alwaysStarted;
  const reasons = input.reasons ?? ((): undefined => undefined);
  const runtimeName = input.runtimeName ?? 'containerd';
  const nodeIPs = input.nodeIPs ?? [];
  const podIsTerminal = input.podIsTerminal ?? false;
  const hasInit = (pod.spec.initContainers?.length ?? 0) > 0;

  const s: PodStatus = {};
  const podIPs = sortPodIPs(runtimeStatus.ips, nodeIPs);
  if (podIPs.length > 0) {
    s.podIP = podIPs[0];
    s.podIPs = podIPs.map((ip) => ({ ip }));
  }
  s.qosClass = getPodQOSClass(pod);
  const common = { pod, runtimeStatus, reasons, runtimeName, hasInitContainers: hasInit };
  const containerStatuses = convertToAPIContainerStatuses({
    ...common,
    previous: old.containerStatuses ?? [],
    containers: pod.spec.containers,
    isInit: false,
  });
  const initStatuses = convertToAPIContainerStatuses({
    ...common,
    previous: old.initContainerStatuses ?? [],
    containers: pod.spec.initContainers ?? [],
    isInit: true,
  });

  // What the probe manager does upstream (UpdatePodStatus): started and ready per container.
  const idOf = (st: ContainerStatus): string => (st.containerID ?? '').replace(/^[^:]+:\/\//, '');
  for (const st of containerStatuses) {
    const running = st.state?.running !== undefined;
    const ref: ContainerRef = { pod, containerName: st.name };
    st.started = running && startup.isStarted(idOf(st), ref);
    st.ready = running && st.started && readiness.isReady(idOf(st), ref);
  }
  const initByName = new Map((pod.spec.initContainers ?? []).map((c) => [c.name, c]));
  for (const st of initStatuses) {
    const spec = initByName.get(st.name);
    const running = st.state?.running !== undefined;
    if (spec !== undefined && isRestartableInitContainer(spec)) {
      const ref: ContainerRef = { pod, containerName: st.name };
      st.started = running && startup.isStarted(idOf(st), ref);
      st.ready = running && st.started && readiness.isReady(idOf(st), ref);
    } else {
      st.started = running;
      st.ready = st.state?.terminated !== undefined && st.state.terminated.exitCode === 0;
    }
  }
  s.containerStatuses = containerStatuses;
  if (hasInit) s.initContainerStatuses = initStatuses;
  // Upstream: converted like regular containers (sorted by name), never probed, so never ready and
  // no `started`; they count neither for the phase nor for the conditions.
  const ephemeralSpecs = (pod.spec.ephemeralContainers ?? []).map(({ targetContainerName: _target, ...c }) => c);
  if (ephemeralSpecs.length > 0) {
    s.ephemeralContainerStatuses = convertToAPIContainerStatuses({
      ...common,
      previous: old.ephemeralContainerStatuses ?? [],
      containers: ephemeralSpecs,
      isInit: false,
    });
  }

  const all = [...containerStatuses, ...initStatuses];
  let phase: string = getPodPhase(pod, all, podIsTerminal);
  // Three-way merge: a terminal phase, once reached (by us or the API), is kept.
  if (!isTerminalPhase(phase)) {
    if (isTerminalPhase(old.phase)) phase = old.phase;
    else if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase;
  }
  if (isTerminalPhase(apiStatus.phase) && phase !== apiStatus.phase) phase = apiStatus.phase;
  s.phase = phase;
  if (phase === old.phase) {
    const reason = old.reason !== undefined && old.reason !== '' ? old.reason : apiStatus.reason;
    const message = old.message !== undefined && old.message !== '' ? old.message : apiStatus.message;
    if (reason !== undefined && reason !== '') s.reason = reason;
    if (message !== undefined && message !== '') s.message = message;
  }
  if (input.evict !== undefined) {
    phase = 'Failed';
    s.phase = phase;
    s.reason = input.evict.reason;
    s.message = input.evict.message;
  }

  const conditions: PodCondition[] = (apiStatus.conditions ?? []).filter((c) => !KUBELET_CONDITION_TYPES.has(c.type));
  const disruption = old.conditions?.find((c) => c.type === 'DisruptionTarget');
  if (disruption !== undefined && !conditions.some((c) => c.type === 'DisruptionTarget')) conditions.push(disruption);
  // Upstream killPodNow's status function: the condition the kubelet stopped the pod with (DisruptionTarget).
  const killCondition = input.evict?.condition;
  if (killCondition !== undefined && !conditions.some((c) => c.type === killCondition.type)) conditions.push({ ...killCondition });
  const allForConditions = [...initStatuses, ...containerStatuses];
  conditions.push(generatePodReadyToStartContainersCondition(pod, runtimeStatus));
  conditions.push(generatePodInitializedCondition(pod, allForConditions, phase));
  conditions.push(generatePodReadyCondition(pod, conditions, allForConditions, phase));
  conditions.push(generateContainersReadyCondition(pod, allForConditions, phase));
  conditions.push({ type: 'PodScheduled', status: 'True' });
  s.conditions = updateLastTransitionTimes(conditions, old.conditions ?? [], input.now);

  if (nodeIPs.length > 0) {
    s.hostIP = nodeIPs[0];
    s.hostIPs = nodeIPs.slice(0, 2).map((ip) => ({ ip }));
    if (pod.spec.hostNetwork === true) {
      // Host-network pods inherit the node IPs.
      if (s.podIP === undefined) {
        s.podIP = nodeIPs[0];
        s.podIPs = [{ ip: nodeIPs[0] as string }];
      }
      const second = nodeIPs[1];
      if (second !== undefined && s.podIPs?.length === 1 && isIPv4(s.podIPs[0]?.ip ?? '') !== isIPv4(second)) s.podIPs.push({ ip: second });
    }
  }
  s.startTime = old.startTime ?? apiStatus.startTime ?? formatTime(input.now);
  return s;
}
