// The pods every benchmark starts: one http-echo container (an image the runtime env imported, so
// nothing is pulled), optionally with an httpGet readiness probe at the upstream default period.
// The same shape goes to the kubelet (a static pod manifest), to the direct-CRI baseline (the CRI
// requests below) and to podman (kube play YAML).
import { env } from './env.mjs';

export const CONTAINER_NAME = 'app';

/** A static pod manifest; the kubelet renames it `<name>-<nodeName>`. */
export function podManifest(name, { readiness = false, label = 'bench' } = {}) {
  const container = {
    name: CONTAINER_NAME,
    image: env('KUBELET_TS_HTTP_IMAGE'),
    imagePullPolicy: 'IfNotPresent',
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    ...(readiness ? { readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10, timeoutSeconds: 1 } } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { benchmark: label } },
    spec: { containers: [container] },
  };
}

/** Pod names bench-000, bench-001, … */
export const podNames = (count, prefix = 'bench') => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
