import type { Container, Pod } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import { findContainerStatus, hashContainer, shouldContainerBeRestarted } from '@kubelet-ts/container-runtime';
import type { ProbeResults, RuntimeContainerStatus, RuntimePodStatus } from '@kubelet-ts/container-runtime';

/** Why a container is killed (upstream containerKillReason). */
export const ContainerKillReason = {
  None: '',
  StartupProbe: 'StartupProbe',
  LivenessProbe: 'LivenessProbe',
  FailedPostStartHook: 'FailedPostStartHook',
  Unknown: 'Unknown',
  NotInSpec: 'NotInSpec',
} as const;
export type ContainerKillReason = (typeof ContainerKillReason)[keyof typeof ContainerKillReason];

/** A container SyncPod must stop before it starts anything. */
export interface ContainerToKill {
  /** CRI container ID. */
  id: string;
  name: string;
  /** The spec, when the container is in it (for the preStop hook and the grace period). */
  container?: Container;
  reason: ContainerKillReason;
  message: string;
}

/** What SyncPod must do for one pod (upstream podActions). */
export interface PodActions {
  /** Stop every container and sandbox of the pod first. */
  killPod: boolean;
  /** Create a new sandbox (after killing the pod). */
  createSandbox: boolean;
  /** The current sandbox, '' when there is none (or it must not be reused). */
  sandboxId: string;
  /** Sandbox metadata attempt to use for a new sandbox (or the current one's). */
  attempt: number;
  /** Indices into `pod.spec.initContainers`, in the order to start them. */
  initContainersToStart: number[];
  /** Indices into `pod.spec.containers`. */
  containersToStart: number[];
  /**
   * Indices into `pod.spec.ephemeralContainers`: those the runtime has no instance of. Ephemeral
   * containers are never restarted, and may start before the pod is initialized.
   */
  ephemeralContainersToStart: number[];
  /** Containers to kill when the pod itself is not killed. */
  containersToKill: ContainerToKill[];
}

export interface ComputePodActionsDeps {
  /** Probe verdicts; without it no container is killed for a failed probe. */
  probeResults?: ProbeResults;
}

/** Upstream shouldRestartOnFailure: anything but restartPolicy Never. */
export function shouldRestartOnFailure(pod: Pod): boolean {
  return (pod.spec.restartPolicy ?? 'Always') !== 'Never';
}

interface SandboxChange {
  changed: boolean;
  attempt: number;
  sandboxId: string;
}

/** Upstream PodSandboxChanged. */
export function podSandboxChanged(pod: Pod, status: RuntimePodStatus): SandboxChange {
  const newest = status.sandboxes[0];
  if (newest === undefined) return { changed: true, attempt: 0, sandboxId: '' };
  let ready = 0;
  let maxAttempt = 0;
  for (const s of status.sandboxes) {
    if (s.state === 'ready') ready++;
    if (s.attempt > maxAttempt) maxAttempt = s.attempt;
  }
  // Several ready sandboxes must be reconciled; a not-ready newest one must be replaced.
  if (ready > 1 || newest.state !== 'ready') return { changed: true, attempt: maxAttempt + 1, sandboxId: newest.id };
  // The network namespace mode changed (hostNetwork toggled): the sandbox cannot be reused.
  if (newest.hostNetwork !== (pod.spec.hostNetwork === true)) return { changed: true, attempt: maxAttempt + 1, sandboxId: '' };
  if (pod.spec.hostNetwork !== true && (newest.ip === undefined || newest.ip === '')) {
    return { changed: true, attempt: maxAttempt + 1, sandboxId: newest.id };
  }
  return { changed: false, attempt: maxAttempt, sandboxId: newest.id };
}

function isInitContainerFailed(status: RuntimeContainerStatus): boolean {
  if ((status.reason ?? '').includes('OOMKilled')) return true;
  if (status.state === 'exited' && status.exitCode !== 0) return true;
  return status.state === 'unknown';
}

function containerSucceeded(container: Container, status: RuntimePodStatus): boolean {
  const latest = findContainerStatus(status, container.name);
  return latest !== undefined && latest.state === 'exited' && latest.exitCode === 0;
}

function hasAnyRegularContainerCreated(pod: Pod, status: RuntimePodStatus): boolean {
  return pod.spec.containers.some((c) => {
    const s = findContainerStatus(status, c.name);
    return s !== undefined && (s.state === 'created' || s.state === 'running' || s.state === 'exited');
  });
}

/**
 * Decides what SyncPod must do to converge one pod, without side effects (upstream
 * computePodActions with the sidecar-aware init container rules).
 */
export function computePodActions(pod: Pod, status: RuntimePodStatus, deps: ComputePodActionsDeps = {}): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const actions: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: [],
  };
  const initContainers = pod.spec.initContainers ?? [];

  if (sandbox.changed) {
    // restartPolicy Never and containers already ran: do not bring the pod back, just kill it.
    if (!shouldRestartOnFailure(pod) && sandbox.attempt !== 0 && status.containers.length !== 0) {
      actions.createSandbox = false;
      return actions;
    }
    const toStart: number[] = [];
    pod.spec.containers.forEach((c, idx) => {
      if (pod.spec.restartPolicy === 'OnFailure' && containerSucceeded(c, status)) return;
      toStart.push(idx);
    });
    if (toStart.length === 0 && hasAnyRegularContainerCreated(pod, status)) {
      actions.createSandbox = false;
      return actions;
    }
    // A new sandbox starts from scratch: the first init container, or every container to start.
    if (initContainers.length > 0) actions.initContainersToStart = [0];
    else actions.containersToStart = toStart;
    return actions;
  }

  // Upstream: after the sandbox check, before initialization; an instance in any state means it ran.
  (pod.spec.ephemeralContainers ?? []).forEach((c, idx) => {
    if (findContainerStatus(status, c.name) === undefined) actions.ephemeralContainersToStart.push(idx);
  });

  const initialized = computeInitContainerActions(pod, status, actions, deps);
  // A pod that ends here starts nothing in the sandbox it stops (upstream would try, and fail).
  if (actions.killPod) actions.ephemeralContainersToStart = [];
  if (actions.killPod || !initialized) return actions;

  let keepCount = 0;
  pod.spec.containers.forEach((container, idx) => {
    const latest = findContainerStatus(status, container.name);
    if (latest === undefined || latest.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, status)) {
        actions.containersToStart.push(idx);
        if (latest?.state === 'unknown') {
          // Its real state is unknown: kill it first so that two instances never run.
          actions.containersToKill.push({
            id: latest.id,
            name: latest.name,
            container,
            reason: ContainerKillReason.Unknown,
            message: `Container is in "unknown" state, try killing it before restart`,
          });
        }
      }
      return;
    }
    let message: string;
    let reason: ContainerKillReason;
    let restart = shouldRestartOnFailure(pod);
    const expected = hashContainer(container);
    if (latest.hash !== expected) {
      message = `Container ${container.name} definition changed`;
      reason = ContainerKillReason.None;
      // A changed spec restarts the container whatever the restart policy.
      restart = true;
    } else if (deps.probeResults?.livenessFailed(latest.id) === true) {
      message = `Container ${container.name} failed liveness probe`;
      reason = ContainerKillReason.LivenessProbe;
    } else if (deps.probeResults?.startupFailed(latest.id) === true) {
      message = `Container ${container.name} failed startup probe`;
      reason = ContainerKillReason.StartupProbe;
    } else {
      keepCount++;
      return;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      actions.containersToStart.push(idx);
    }
    actions.containersToKill.push({ id: latest.id, name: latest.name, container, reason, message });
  });

  // Running containers that are in no list of the spec are not ours to keep.
  const specNames = new Set([...initContainers, ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])].map((c) => c.name));
  for (const c of status.containers) {
    if (c.state !== 'running' || specNames.has(c.name)) continue;
    if (actions.containersToKill.some((k) => k.id === c.id)) continue;
    actions.containersToKill.push({
      id: c.id,
      name: c.name,
      reason: ContainerKillReason.NotInSpec,
      message: `Container ${c.name} is not in the pod spec`,
    });
  }

  if (keepCount === 0 && actions.containersToStart.length === 0) {
    actions.killPod = true;
    // Sidecars alone, or ephemeral containers, must not keep a finished pod alive.
    actions.initContainersToStart = [];
    actions.ephemeralContainersToStart = [];
  }
  return actions;
}

/**
 * Upstream computeInitContainerActions: start the first init container not yet started, restart a
 * failed one (per restartPolicy), keep sidecars running (restart them when they exit, fail their
 * startup or liveness probe, or change), and start the next init container once a sidecar has
 * started. Returns true when the pod is initialized.
 */
function computeInitContainerActions(pod: Pod, status: RuntimePodStatus, actions: PodActions, deps: ComputePodActionsDeps): boolean {
  const initContainers = pod.spec.initContainers ?? [];
  if (initContainers.length === 0) return true;

  // A created or running regular container means initialization finished at some point, even if
  // the completed init containers were removed since. (Exited ones may belong to an old sandbox.)
  let podHasInitialized = pod.spec.containers.some((c) => {
    const s = findContainerStatus(status, c.name);
    return s !== undefined && (s.state === 'created' || s.state === 'running');
  });
  let previouslyInitialized = podHasInitialized;
  const restartOnFailure = shouldRestartOnFailure(pod);
  const toStart: number[] = [];

  // Walk backwards: completed init containers may have been removed, so the last one that has a
  // status says how far initialization went.
  for (let i = initContainers.length - 1; i >= 0; i--) {
    const container = initContainers[i];
    if (container === undefined) continue;
    const s = findContainerStatus(status, container.name);
    const restartable = isRestartableInitContainer(container);
    if (s === undefined) {
      if (previouslyInitialized && restartable) toStart.push(i);
      continue;
    }
    if (previouslyInitialized && !restartable) continue;

    switch (s.state) {
      case 'created':
        // Created but never started: the runtime failed to start it; start it again.
        toStart.push(i);
        break;
      case 'running': {
        if (!restartable) break; // a regular init container: wait for it to finish
        if (container.startupProbe !== undefined) {
          if (deps.probeResults?.startupFailed(s.id) === true) {
            actions.containersToKill.push({
              id: s.id,
              name: container.name,
              container,
              reason: ContainerKillReason.StartupProbe,
              message: `Init container ${container.name} failed startup probe`,
            });
            toStart.push(i);
            break;
          }
          const started = deps.probeResults?.startupSucceeded?.(s.id);
          if (started === false) break; // not started yet: the next init container waits
        }
        if (i === initContainers.length - 1) podHasInitialized = true;
        else if (!previouslyInitialized) toStart.push(i + 1);

        if (s.hash !== hashContainer(container)) {
          actions.containersToKill.push({
            id: s.id,
            name: container.name,
            container,
            reason: ContainerKillReason.None,
            message: `Init container ${container.name} definition changed`,
          });
          toStart.push(i);
          break;
        }
        if (deps.probeResults?.livenessFailed(s.id) === true) {
          actions.containersToKill.push({
            id: s.id,
            name: container.name,
            container,
            reason: ContainerKillReason.LivenessProbe,
            message: `Init container ${container.name} failed liveness probe`,
          });
          toStart.push(i);
        }
        break;
      }
      case 'exited':
        if (restartable) {
          toStart.push(i);
        } else if (isInitContainerFailed(s)) {
          if (!restartOnFailure) {
            actions.killPod = true;
            actions.initContainersToStart = [];
            return false;
          }
          toStart.push(i);
        } else if (i === initContainers.length - 1) {
          podHasInitialized = true;
        } else {
          toStart.push(i + 1);
        }
        break;
      default:
        // Unknown: kill it before starting it again, unless a failed init container ends the pod.
        if (!restartable && !restartOnFailure) {
          actions.killPod = true;
          actions.initContainersToStart = [];
          return false;
        }
        actions.containersToKill.push({
          id: s.id,
          name: container.name,
          container,
          reason: ContainerKillReason.Unknown,
          message: `Init container is in "unknown" state, try killing it before restart`,
        });
        toStart.push(i);
    }
    previouslyInitialized = true;
  }

  if (!previouslyInitialized) toStart.push(0);
  actions.initContainersToStart = toStart.reverse();
  return podHasInitialized;
}
