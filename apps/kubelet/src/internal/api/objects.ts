// What pods take from the cluster (upstream NewMainKubelet: secretManager, configMapManager,
// tokenManager): watch-based ConfigMap and Secret managers told of every pod by the pod manager,
// and bound service account tokens; served to volumes and env through the one ObjectSource port.
import type { ObjectSource, Pod } from '@kubelet-ts/api';
import { isStaticPod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { KubeClient } from '@kubelet-ts/kube-client';
import {
  createConfigMapManager,
  createObjectSource,
  createSecretManager,
  createServiceAccountTokenSource,
  createTokenManager,
  createTokenRequestApi,
  ObjectManagerError,
} from '@kubelet-ts/object-manager';
import type { ServiceAccountTokenSource } from '@kubelet-ts/object-manager';
import type { PodObjectRegistry } from '@kubelet-ts/pod-lifecycle';

export interface ClusterObjects {
  /** ConfigMaps and Secrets of API pods; a static pod's (never registered) come from `fallback` when given. */
  source(fallback?: ObjectSource): ObjectSource;
  tokens: ServiceAccountTokenSource;
  /** The pod manager's registry: API pods' objects are watched while a pod names them. */
  registry: PodObjectRegistry;
  /** A pod the kubelet forgot: its tokens go (upstream DeleteServiceAccountToken). */
  podRemoved(uid: string): void;
}

export function createClusterObjects(o: {
  client: Pick<KubeClient, 'list' | 'watch' | 'create'>;
  /** syncFrequency: an object not read for 5 × this stops being watched until the next read (upstream). */
  syncFrequencyMs: number;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}): ClusterObjects {
  const common = { client: o.client, clock: o.clock, signal: o.signal, resyncIntervalMs: o.syncFrequencyMs };
  const configMaps = createConfigMapManager({ ...common, logger: o.logger.child({ component: 'configmap' }) });
  const secrets = createSecretManager({ ...common, logger: o.logger.child({ component: 'secret' }) });
  const tokenManager = createTokenManager({
    api: createTokenRequestApi(o.client),
    clock: o.clock,
    logger: o.logger.child({ component: 'token' }),
    signal: o.signal,
  });
  const api = createObjectSource({ configMaps, secrets });
  const notRegistered = (err: unknown): boolean => err instanceof ObjectManagerError && err.code === 'NOT_REGISTERED';
  return {
    source(fallback) {
      if (fallback === undefined) return api;
      return {
        getConfigMap: (ns, name) =>
          api.getConfigMap(ns, name).catch((err: unknown) => (notRegistered(err) ? fallback.getConfigMap(ns, name) : Promise.reject(err))),
        getSecret: (ns, name) =>
          api.getSecret(ns, name).catch((err: unknown) => (notRegistered(err) ? fallback.getSecret(ns, name) : Promise.reject(err))),
      };
    },
    tokens: createServiceAccountTokenSource(tokenManager),
    registry: {
      // Static pods may not name API objects (their mirror could not be created); they are not registered.
      registerPod(pod: Pod) {
        if (isStaticPod(pod)) return;
        configMaps.registerPod(pod);
        secrets.registerPod(pod);
      },
      unregisterPod(pod: Pod) {
        if (isStaticPod(pod)) return;
        configMaps.unregisterPod(pod);
        secrets.unregisterPod(pod);
      },
    },
    podRemoved: (uid) => tokenManager.deleteServiceAccountToken(uid),
  };
}
