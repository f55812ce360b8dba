// Upstream Kubelet.initialNode without the status (the setters fill it): labels, the
// controller-managed attach-detach annotation, taints and unschedulable.
import type { Node, Taint } from '@kubelet-ts/api';
import { goArch } from './platform.js';

/** Upstream volutil.ControllerManagedAttachAnnotation. */
export const CONTROLLER_MANAGED_ATTACH_ANNOTATION = 'volumes.kubernetes.io/controller-managed-attach-detach';

/** Upstream v1.TaintNodeUnschedulable. */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** The well-known node labels (k8s.io/api/core/v1 well_known_labels.go, kubelet apis). */
export const NodeLabel = {
  Hostname: 'kubernetes.io/hostname',
  OS: 'kubernetes.io/os',
  Arch: 'kubernetes.io/arch',
  BetaOS: 'beta.kubernetes.io/os',
  BetaArch: 'beta.kubernetes.io/arch',
  TopologyZone: 'topology.kubernetes.io/zone',
  TopologyRegion: 'topology.kubernetes.io/region',
  FailureDomainBetaZone: 'failure-domain.beta.kubernetes.io/zone',
  FailureDomainBetaRegion: 'failure-domain.beta.kubernetes.io/region',
  InstanceTypeStable: 'node.kubernetes.io/instance-type',
  InstanceType: 'beta.kubernetes.io/instance-type',
  WindowsBuild: 'node.kubernetes.io/windows-build',
} as const;

export interface InitialNodeOptions {
  nodeName: string;
  /** The `kubernetes.io/hostname` label; default the node name. */
  hostname?: string;
  /** `--node-labels`: added last, over the defaults (upstream logs the override). */
  nodeLabels?: Readonly<Record<string, string>>;
  /** `registerWithTaints`. */
  registerWithTaints?: readonly Taint[];
  /** `registerSchedulable` (default true); false sets `spec.unschedulable` and the unschedulable taint. */
  registerSchedulable?: boolean;
  /** `enableControllerAttachDetach` (default true): the annotation `volumes.kubernetes.io/controller-managed-attach-detach: "true"`. */
  enableControllerAttachDetach?: boolean;
  /** `--provider-id`. */
  providerID?: string;
  /** Go's GOOS and GOARCH; default linux and the process's architecture. */
  os?: string;
  arch?: string;
}

/** The labels upstream initialNode starts from: hostname, os and arch (stable and beta). */
export function initialNodeLabels(options: Pick<InitialNodeOptions, 'nodeName' | 'hostname' | 'os' | 'arch'>): Record<string, string> {
  const os = options.os ?? 'linux';
  const arch = options.arch ?? goArch();
  return {
    [NodeLabel.Hostname]: options.hostname ?? options.nodeName,
    [NodeLabel.OS]: os,
    [NodeLabel.Arch]: arch,
    [NodeLabel.BetaOS]: os,
    [NodeLabel.BetaArch]: arch,
  };
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

/** The node to register before the status setters run (upstream initialNode up to setNodeStatus). */
export function initialNode(options: InitialNodeOptions): Node {
  const unschedulable = options.registerSchedulable === false;
  const taints: Taint[] = (options.registerWithTaints ?? []).map((t) => ({ ...t }));
  const unschedulableTaint: Taint = { key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' };
  // Tainted at creation, so that no pod lands before the node lifecycle controller taints it (#63897).
  if (unschedulable && !taints.some((t) => sameTaint(t, unschedulableTaint))) taints.push(unschedulableTaint);

  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: options.nodeName, labels: { ...initialNodeLabels(options), ...options.nodeLabels } },
    spec: {},
    status: {},
  };
  if (unschedulable) node.spec!.unschedulable = true;
  if (taints.length > 0) node.spec!.taints = taints;
  if (options.providerID !== undefined && options.providerID !== '') node.spec!.providerID = options.providerID;
  if (options.enableControllerAttachDetach !== false) node.metadata.annotations = { [CONTROLLER_MANAGED_ATTACH_ANNOTATION]: 'true' };
  return node;
}
