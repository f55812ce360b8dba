// The calls the kubelet makes, by resource (client-go's typed clientsets, trimmed to the kubelet's
// verbs). Each returns the raw reply: the ports that consume them (node-status, status-manager,
// events, certificate-manager, pod-lifecycle) validate what comes back. Structural shapes keep this
// package free of theirs.
import type { Lease, Node } from '@kubelet-ts/api';
import { PatchType } from './types.js';
import type { KubeClient, WatchEvent } from './types.js';

type Client = Pick<KubeClient, 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'watch'>;

const seg = (s: string): string => encodeURIComponent(s);
const podsPath = (namespace: string): string => `/api/v1/namespaces/${seg(namespace)}/pods`;
const leasesPath = (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`;
const eventsPath = (namespace: string): string => `/api/v1/namespaces/${seg(namespace)}/events`;
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

/** A DeleteOptions body: the grace period and a UID precondition (upstream's final and mirror-pod deletes). */
function deleteOptions(options: { gracePeriodSeconds?: number; uid?: string }): Record<string, unknown> {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    ...(options.uid !== undefined ? { preconditions: { uid: options.uid } } : {}),
  };
}

/** `CoreV1().Nodes()`: create, get, and strategic-merge patches of the status subresource. */
export function nodesApi(client: Client) {
  return {
    create: (node: Node): Promise<unknown> => client.create('/api/v1/nodes', node),
    get: (name: string): Promise<unknown> => client.get(`/api/v1/nodes/${seg(name)}`),
    patchStatus: (name: string, patch: object): Promise<unknown> =>
      client.patch(`/api/v1/nodes/${seg(name)}/status`, patch, PatchType.Strategic),
  };
}

/** `CoordinationV1().Leases(ns)`: get, create, and update with the resourceVersion precondition. */
export function leasesApi(client: Client) {
  return {
    get: (namespace: string, name: string): Promise<unknown> => client.get(`${leasesPath(namespace)}/${seg(name)}`),
    create: (lease: Lease): Promise<unknown> => client.create(leasesPath(lease.metadata.namespace ?? ''), lease),
    update: (lease: Lease): Promise<unknown> =>
      client.update(`${leasesPath(lease.metadata.namespace ?? '')}/${seg(lease.metadata.name)}`, lease),
  };
}

/** `CoreV1().Pods(ns)`: what the status manager (get, patch status, final delete) and mirror pods (create, delete) call. */
export function podsApi(client: Client) {
  return {
    get: (namespace: string, name: string): Promise<unknown> => client.get(`${podsPath(namespace)}/${seg(name)}`),
    create: (pod: { metadata: { namespace?: string } }): Promise<unknown> =>
      client.create(podsPath(pod.metadata.namespace ?? 'default'), pod),
    patchStatus: (namespace: string, name: string, patch: object): Promise<unknown> =>
      client.patch(`${podsPath(namespace)}/${seg(name)}/status`, patch, PatchType.Strategic),
    delete: (namespace: string, name: string, options: { gracePeriodSeconds?: number; uid?: string }): Promise<unknown> =>
      client.delete(`${podsPath(namespace)}/${seg(name)}`, { body: deleteOptions(options) }),
  };
}

/** `CoreV1().Events(ns)`: the event sink's create and strategic-merge patch (count, lastTimestamp, message). */
export function eventsApi(client: Client) {
  return {
    create: (event: { metadata: { namespace?: string } }): Promise<unknown> =>
      client.create(eventsPath(event.metadata.namespace ?? 'default'), event),
    patch: (namespace: string, name: string, patch: object): Promise<unknown> =>
      client.patch(`${eventsPath(namespace)}/${seg(name)}`, patch, PatchType.Strategic),
  };
}

/** `CertificatesV1().CertificateSigningRequests()`: create, get, and a list-then-watch of one CSR by name. */
export function certificateSigningRequestsApi(client: Client) {
  return {
    create: (csr: object, signal?: AbortSignal): Promise<unknown> => client.create(CSRS, csr, signal !== undefined ? { signal } : {}),
    get: (name: string, signal?: AbortSignal): Promise<unknown> =>
      client.get(`${CSRS}/${seg(name)}`, signal !== undefined ? { signal } : {}),
    watch: (name: string, signal: AbortSignal): AsyncIterable<WatchEvent> => watchByName(client, CSRS, name, signal),
  };
}

/** `AuthenticationV1().TokenReviews()`: create only (the webhook token authenticator's port, server `TokenReviewer`). */
export function tokenReviewsApi(client: Pick<KubeClient, 'create'>) {
  return {
    create: (review: object, signal?: AbortSignal): Promise<unknown> =>
      client.create(TOKEN_REVIEWS, review, signal !== undefined ? { signal } : {}),
  };
}

/** `AuthorizationV1().SubjectAccessReviews()`: create only (the webhook authorizer's port, server `SubjectAccessReviewer`). */
export function subjectAccessReviewsApi(client: Pick<KubeClient, 'create'>) {
  return {
    create: (sar: object, signal?: AbortSignal): Promise<unknown> =>
      client.create(SUBJECT_ACCESS_REVIEWS, sar, signal !== undefined ? { signal } : {}),
  };
}

/** The listed state of one object as ADDED, then the watch from the list's resourceVersion. */
async function* watchByName(client: Client, path: string, name: string, signal: AbortSignal): AsyncIterable<WatchEvent> {
  const fieldSelector = `metadata.name=${name}`;
  const list = (await client.list(path, { query: { fieldSelector }, signal })) as {
    metadata?: { resourceVersion?: string };
    items?: unknown[];
  };
  for (const item of list.items ?? []) yield { type: 'ADDED', object: item };
  yield* client.watch(path, { fieldSelector, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true }, signal);
}
