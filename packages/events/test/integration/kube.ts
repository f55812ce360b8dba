// The tests' API clients (@kubelet-ts/kube-client over the control plane's kubeconfigs) and the
// EventSink port over one, as apps/kubelet wires it.
import type { Event } from '@kubelet-ts/api';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createKubeClient, loadKubeconfig } from '@kubelet-ts/kube-client';
import type { KubeClient } from '@kubelet-ts/kube-client';
import type { EventPatch, EventSink } from '../../src/index.js';

export async function kubeClient(kubeconfig: string): Promise<KubeClient> {
  const connection = await loadKubeconfig(kubeconfig);
  const userAgent = 'kubelet-ts-events-test';
  return createKubeClient({
    connection,
    name: userAgent,
    userAgent,
    qps: -1,
    burst: 0,
    timeoutMs: 10_000,
    logger: noopLogger,
    clock: systemClock,
  });
}

/** The EventSink port over the client (calls kept for assertions); its errors carry `statusCode` and `reason`. */
export function eventSink(client: KubeClient, calls: string[]): EventSink {
  return {
    create(event: Event) {
      calls.push(`POST ${event.metadata.namespace}`);
      return client.create(`/api/v1/namespaces/${event.metadata.namespace}/events`, event);
    },
    patch(namespace: string, name: string, patch: EventPatch) {
      calls.push(`PATCH ${namespace}/${name}`);
      return client.patch(`/api/v1/namespaces/${namespace}/events/${name}`, patch, 'strategic');
    },
  };
}
