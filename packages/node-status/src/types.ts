import type { Node } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';

/**
 * Upstream nodestatus.Setter: fills part of the node being built from what a provider reports.
 * Setters run in order on the same object; one that throws is logged and the others still run.
 */
export interface NodeStatusSetter {
  /** For the log when it fails (`NodeAddress`, `MachineInfo`, …, upstream's setter names). */
  readonly name: string;
  set(node: Node): void | Promise<void>;
}

/**
 * Where the built node goes (upstream: the API server, through registerWithAPIServer and
 * updateNodeStatus). Standalone there is nowhere: `noopNodeSink`.
 */
export interface NodeSink {
  update(node: Node): void | Promise<void>;
}

export interface NodeStatusOptions {
  nodeName: string;
  /** Labels of the initial node (upstream initialNode). Default: `kubernetes.io/hostname`, `kubernetes.io/os`, `kubernetes.io/arch`. */
  labels?: Readonly<Record<string, string>>;
  setters: readonly NodeStatusSetter[];
  /** Default `noopNodeSink`. */
  sink?: NodeSink;
  logger?: Logger;
}

/** Upstream Kubelet.initialNode + setNodeStatus + syncNodeStatus, without registration and lease. */
export interface NodeStatusManager {
  /** The node as the setters report it now (a new object each call). */
  getNode(): Promise<Node>;
  /** Runs the setters, in order, on `node` in place (upstream setNodeStatus): the initial node, or a copy of the API's. */
  setNodeStatus(node: Node): Promise<void>;
  /** Builds the node and hands it to the sink (what API mode runs every nodeStatusUpdateFrequency). */
  syncNodeStatus(): Promise<void>;
}
