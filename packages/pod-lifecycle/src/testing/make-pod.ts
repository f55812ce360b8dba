import type { Container, Pod } from '@kubelet-ts/api';

/** Options of {@link makePod}: the few fields lifecycle tests usually vary. */
export interface MakePodOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  containers?: Array<Partial<Container> & { name: string }>;
  initContainers?: Array<Partial<Container> & { name: string }>;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  /** Annotations, e.g. kubernetes.io/config.source for a static pod. */
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** Anything else of the spec. */
  spec?: Partial<Pod['spec']>;
}

let counter = 0;

/**
 * A minimal valid Pod for tests: one container `app` running `busybox` unless told otherwise,
 * a unique UID per call, restartPolicy Always.
 */
export function makePod(options: MakePodOptions = {}): Pod {
  counter += 1;
  const name = options.name ?? `pod-${counter}`;
  const toContainer = (c: Partial<Container> & { name: string }): Container => ({ image: 'busybox', ...c });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-${name}-${counter}`,
      ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
    },
    spec: {
      containers: (options.containers ?? [{ name: 'app' }]).map(toContainer),
      ...(options.initContainers !== undefined ? { initContainers: options.initContainers.map(toContainer) } : {}),
      restartPolicy: options.restartPolicy ?? 'Always',
      ...(options.terminationGracePeriodSeconds !== undefined
        ? { terminationGracePeriodSeconds: options.terminationGracePeriodSeconds }
        : {}),
      ...(options.hostNetwork !== undefined ? { hostNetwork: options.hostNetwork } : {}),
      ...options.spec,
    },
  };
}
