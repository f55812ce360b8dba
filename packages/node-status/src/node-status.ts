import type { Node } from '@kubelet-ts/api';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { goArch } from './platform.js';
import type { NodeSink, NodeStatusManager, NodeStatusOptions } from './types.js';

/** A sink that sends the node nowhere: standalone mode. */
export const noopNodeSink: NodeSink = { update: () => undefined };

/** Upstream initialNode's labels (without the deprecated beta.kubernetes.io ones). */
export function defaultNodeLabels(nodeName: string): Record<string, string> {
  return { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': goArch() };
}

export function createNodeStatus(options: NodeStatusOptions): NodeStatusManager {
  const logger = options.logger ?? noopLogger;
  const sink = options.sink ?? noopNodeSink;
  const labels = options.labels ?? defaultNodeLabels(options.nodeName);

  // Upstream setNodeStatus: every setter in order on the same node; one that fails is logged.
  const setNodeStatus = async (node: Node): Promise<void> => {
    for (const setter of options.setters) {
      try {
        await setter.set(node);
      } catch (err) {
        logger.error('Failed to set some node status fields', { setter: setter.name, node: options.nodeName, err: errorMessage(err) });
      }
    }
  };

  const getNode = async (): Promise<Node> => {
    const node: Node = { kind: 'Node', apiVersion: 'v1', metadata: { name: options.nodeName, labels: { ...labels } }, status: {} };
    await setNodeStatus(node);
    return node;
  };

  return {
    getNode,
    setNodeStatus,
    async syncNodeStatus() {
      await sink.update(await getNode());
    },
  };
}
