// Upstream reason strings, spelled exactly as the kubelet writes them into pod and container
// status and events. Objects rather than loose constants because some names ("Error") would
// shadow globals.

/** Reasons written into PodStatus.reason, condition reasons and ContainerState waiting/terminated reasons. */
export const Reason = {
  // ContainerStateWaiting (kubelet, kuberuntime, images)
  ContainerCreating: 'ContainerCreating',
  PodInitializing: 'PodInitializing',
  CrashLoopBackOff: 'CrashLoopBackOff',
  ImagePullBackOff: 'ImagePullBackOff',
  ErrImagePull: 'ErrImagePull',
  ErrImageNeverPull: 'ErrImageNeverPull',
  InvalidImageName: 'InvalidImageName',
  ImageInspectError: 'ImageInspectError',
  RegistryUnavailable: 'RegistryUnavailable',
  CreateContainerConfigError: 'CreateContainerConfigError',
  CreateContainerError: 'CreateContainerError',
  PreCreateHookError: 'PreCreateHookError',
  PreStartHookError: 'PreStartHookError',
  PostStartHookError: 'PostStartHookError',
  RunContainerError: 'RunContainerError',
  RunInitContainerError: 'RunInitContainerError',
  KillContainerError: 'KillContainerError',
  VerifyNonRootError: 'VerifyNonRootError',
  CreatePodSandboxError: 'CreatePodSandboxError',
  ConfigPodSandboxError: 'ConfigPodSandboxError',
  KillPodSandboxError: 'KillPodSandboxError',
  // ContainerStateTerminated
  Completed: 'Completed',
  Error: 'Error',
  OOMKilled: 'OOMKilled',
  ContainerCannotRun: 'ContainerCannotRun',
  ContainerStatusUnknown: 'ContainerStatusUnknown',
  // PodStatus.reason
  Evicted: 'Evicted',
  DeadlineExceeded: 'DeadlineExceeded',
  UnexpectedAdmissionError: 'UnexpectedAdmissionError',
  NodeAffinity: 'NodeAffinity',
  /** Node shutdown manager: pods killed for an imminent shutdown. */
  Terminated: 'Terminated',
  TerminationByKubelet: 'TerminationByKubelet',
  // PodCondition reasons
  ContainersNotReady: 'ContainersNotReady',
  ContainersNotInitialized: 'ContainersNotInitialized',
  PodCompleted: 'PodCompleted',
  ReadinessGatesNotReady: 'ReadinessGatesNotReady',
  // Event reason also used in messages about probes
  Unhealthy: 'Unhealthy',
  // NodeCondition reasons (pkg/kubelet/nodestatus setters)
  KubeletReady: 'KubeletReady',
  KubeletNotReady: 'KubeletNotReady',
  KubeletHasSufficientMemory: 'KubeletHasSufficientMemory',
  KubeletHasInsufficientMemory: 'KubeletHasInsufficientMemory',
  KubeletHasNoDiskPressure: 'KubeletHasNoDiskPressure',
  KubeletHasDiskPressure: 'KubeletHasDiskPressure',
  KubeletHasSufficientPID: 'KubeletHasSufficientPID',
  KubeletHasInsufficientPID: 'KubeletHasInsufficientPID',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Event reasons the kubelet records (pkg/kubelet/events). Several share the string "Failed" or "BackOff", as upstream. */
export const EventReason = {
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  PreemptContainer: 'Preempting',
  BackOffStartContainer: 'BackOff',
  ExceededGracePeriod: 'ExceededGracePeriod',
  FailedToKillPod: 'FailedKillPod',
  FailedToCreatePodContainer: 'FailedCreatePodContainer',
  FailedToMakePodDataDirectories: 'Failed',
  NetworkNotReady: 'NetworkNotReady',
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPullPolicy: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
  FailedMountVolume: 'FailedMount',
  FailedValidation: 'FailedValidation',
  ContainerUnhealthy: 'Unhealthy',
  ContainerProbeWarning: 'ProbeWarning',
  FailedSync: 'FailedSync',
  FailedPostStartHook: 'FailedPostStartHook',
  FailedPreStopHook: 'FailedPreStopHook',
  SandboxChanged: 'SandboxChanged',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
  FailedStatusPodSandBox: 'FailedPodSandBoxStatus',
  Evicted: 'Evicted',
  NodeReady: 'NodeReady',
  NodeNotReady: 'NodeNotReady',
  NodeSchedulable: 'NodeSchedulable',
  NodeNotSchedulable: 'NodeNotSchedulable',
  Starting: 'Starting',
  // Node condition transitions (pkg/kubelet/nodestatus: plain strings there).
  NodeHasSufficientMemory: 'NodeHasSufficientMemory',
  NodeHasInsufficientMemory: 'NodeHasInsufficientMemory',
  NodeHasNoDiskPressure: 'NodeHasNoDiskPressure',
  NodeHasDiskPressure: 'NodeHasDiskPressure',
  NodeHasSufficientPID: 'NodeHasSufficientPID',
  NodeHasInsufficientPID: 'NodeHasInsufficientPID',
} as const;
export type EventReason = (typeof EventReason)[keyof typeof EventReason];
