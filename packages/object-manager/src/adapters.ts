// The consumer ports, implemented from the managers: the volume manager's (and the env's) ObjectSource
// and the volume manager's TokenSource for projected serviceAccountToken sources.
import type { ConfigMap, ObjectSource, Pod, Secret, TokenRequest } from '@kubelet-ts/api';
import { decodeConfigMap, decodeSecret } from '@kubelet-ts/api';
import { ObjectManagerError } from './errors.js';
import type { TokenManager } from './token-manager.js';
import type { ObjectManager } from './types.js';

/** ConfigMaps and Secrets, decoded (base64 → Buffer), from the two managers; `undefined` = not found. */
export function createObjectSource(managers: { configMaps: ObjectManager<ConfigMap>; secrets: ObjectManager<Secret> }): ObjectSource {
  return {
    async getConfigMap(namespace, name) {
      const cm = await managers.configMaps.get(namespace, name);
      return cm === undefined ? undefined : decodeConfigMap(cm);
    },
    async getSecret(namespace, name) {
      const secret = await managers.secrets.get(namespace, name);
      return secret === undefined ? undefined : decodeSecret(secret);
    },
  };
}

/** What a projected `serviceAccountToken` source asks for (the volume manager's ServiceAccountTokenRequest). */
export interface ServiceAccountTokenRequest {
  /** '' asks for the API server's own audiences. */
  audience: string;
  expirationSeconds: number;
}

/** The volume manager's TokenSource port. */
export interface ServiceAccountTokenSource {
  getServiceAccountToken(pod: Pod, request: ServiceAccountTokenRequest): Promise<string>;
}

/** The TokenRequest the projected volume plugin sends: bound to the pod (apiVersion v1, kind Pod, name, uid). */
export function podTokenRequest(pod: Pod, request: ServiceAccountTokenRequest): TokenRequest {
  return {
    spec: {
      ...(request.audience !== '' ? { audiences: [request.audience] } : {}),
      expirationSeconds: request.expirationSeconds,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
    },
  };
}

/** Tokens of the pod's service account, through the token manager's cache. */
export function createServiceAccountTokenSource(tokens: TokenManager): ServiceAccountTokenSource {
  return {
    async getServiceAccountToken(pod, request) {
      const serviceAccount = pod.spec.serviceAccountName ?? '';
      if (serviceAccount === '') {
        throw new ObjectManagerError(
          'TOKEN_REQUEST',
          `pod ${pod.metadata.namespace}/${pod.metadata.name} has no serviceAccountName to request a token for`,
        );
      }
      const tr = await tokens.getServiceAccountToken(pod.metadata.namespace, serviceAccount, podTokenRequest(pod, request));
      return tr.status?.token ?? '';
    },
  };
}
