export const PodPhase = {
  Pending: 'Pending',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Unknown: 'Unknown',
} as const;
export type PodPhase = (typeof PodPhase)[keyof typeof PodPhase];

export const PodConditionType = {
  PodScheduled: 'PodScheduled',
  PodReadyToStartContainers: 'PodReadyToStartContainers',
  Initialized: 'Initialized',
  ContainersReady: 'ContainersReady',
  Ready: 'Ready',
  DisruptionTarget: 'DisruptionTarget',
} as const;
export type PodConditionType = (typeof PodConditionType)[keyof typeof PodConditionType];

export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

export const PodQOSClass = { Guaranteed: 'Guaranteed', Burstable: 'Burstable', BestEffort: 'BestEffort' } as const;
export type PodQOSClass = (typeof PodQOSClass)[keyof typeof PodQOSClass];

export const RestartPolicy = { Always: 'Always', OnFailure: 'OnFailure', Never: 'Never' } as const;
export type RestartPolicy = (typeof RestartPolicy)[keyof typeof RestartPolicy];

export const PullPolicy = { Always: 'Always', IfNotPresent: 'IfNotPresent', Never: 'Never' } as const;
export type PullPolicy = (typeof PullPolicy)[keyof typeof PullPolicy];

export const DNSPolicy = {
  ClusterFirstWithHostNet: 'ClusterFirstWithHostNet',
  ClusterFirst: 'ClusterFirst',
  Default: 'Default',
  None: 'None',
} as const;
export type DNSPolicy = (typeof DNSPolicy)[keyof typeof DNSPolicy];

export const Protocol = { TCP: 'TCP', UDP: 'UDP', SCTP: 'SCTP' } as const;
export type Protocol = (typeof Protocol)[keyof typeof Protocol];

export const TerminationMessagePolicy = { File: 'File', FallbackToLogsOnError: 'FallbackToLogsOnError' } as const;
export type TerminationMessagePolicy = (typeof TerminationMessagePolicy)[keyof typeof TerminationMessagePolicy];

export const URIScheme = { HTTP: 'HTTP', HTTPS: 'HTTPS' } as const;
export type URIScheme = (typeof URIScheme)[keyof typeof URIScheme];

export const MountPropagationMode = { None: 'None', HostToContainer: 'HostToContainer', Bidirectional: 'Bidirectional' } as const;
export type MountPropagationMode = (typeof MountPropagationMode)[keyof typeof MountPropagationMode];

export const TaintEffect = { NoSchedule: 'NoSchedule', PreferNoSchedule: 'PreferNoSchedule', NoExecute: 'NoExecute' } as const;
export type TaintEffect = (typeof TaintEffect)[keyof typeof TaintEffect];

export const TolerationOperator = { Exists: 'Exists', Equal: 'Equal' } as const;
export type TolerationOperator = (typeof TolerationOperator)[keyof typeof TolerationOperator];

/** Where a pod came from (kubetypes.FileSource etc.). `AllSource` means "every source" in the mux. */
export const PodSourceName = { File: 'file', Http: 'http', Api: 'api', All: '*' } as const;
export type PodSourceName = (typeof PodSourceName)[keyof typeof PodSourceName];

/** Annotation keys the kubelet sets on static pods and reads from mirror pods. */
export const ConfigSourceAnnotationKey = 'kubernetes.io/config.source';
export const ConfigHashAnnotationKey = 'kubernetes.io/config.hash';
export const ConfigFirstSeenAnnotationKey = 'kubernetes.io/config.seen';
export const ConfigMirrorAnnotationKey = 'kubernetes.io/config.mirror';

/** Defaults that upstream SetDefaults_* and the kubelet use. */
export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';
/** 0644: the default file mode of configMap, secret, downwardAPI and projected volumes. */
export const DEFAULT_VOLUME_MODE = 0o644;
