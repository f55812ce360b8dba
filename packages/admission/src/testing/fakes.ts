import type { Node, ResourceList, Taint } from '@kubelet-ts/api';
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from '../types.js';

/** A PodAdmitHandler that records every call and answers `result` (admit by default), or throws `error`. */
export class FakePodAdmitHandler implements PodAdmitHandler {
  readonly calls: PodAdmitAttributes[] = [];
  result: PodAdmitResult = { admit: true };
  error: unknown = undefined;

  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    this.calls.push(attrs);
    if (this.error !== undefined) throw this.error;
    return this.result;
  }
}

export interface TestNodeOptions {
  name?: string;
  /** Default: 4 cpu, 8Gi memory, 100Gi ephemeral storage, 110 pods. Entries given here replace those. */
  allocatable?: ResourceList;
  labels?: Record<string, string>;
  taints?: Taint[];
  /** status.features.supplementalGroupsPolicy */
  supplementalGroupsPolicy?: boolean;
}

/** A Node as the kubelet's getNode returns it, for predicate tests. */
export function testNode(options: TestNodeOptions = {}): Node {
  const name = options.name ?? 'node-a';
  const allocatable: ResourceList = { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi', pods: '110', ...options.allocatable };
  return {
    metadata: { name, labels: options.labels ?? { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
    spec: options.taints !== undefined ? { taints: options.taints } : {},
    status: {
      capacity: allocatable,
      allocatable,
      ...(options.supplementalGroupsPolicy !== undefined
        ? { features: { supplementalGroupsPolicy: options.supplementalGroupsPolicy } }
        : {}),
    },
  };
}
