export { KubeClientError } from './errors.js';
export type { KubeClientErrorCode, KubeClientErrorOptions } from './errors.js';
export { loadKubeconfig } from './kubeconfig.js';
export type { ClusterConnection, LoadKubeconfigOptions, TlsMaterial } from './kubeconfig.js';
export { createKubeClient, DEFAULT_KUBE_API_BURST, DEFAULT_KUBE_API_QPS } from './client.js';
export type { KubeClientOptions } from './client.js';
export { PATCH_CONTENT_TYPES, PatchType } from './types.js';
export type {
  DecodeOptions,
  HttpMethod,
  Informer,
  InformerEventHandler,
  KubeClient,
  KubeClientStats,
  KubeRequest,
  KubeResponse,
  Query,
  QueryValue,
  RequestOptions,
  WatchEvent,
} from './types.js';
export { createInformer, INFORMER_BACKOFF_INITIAL_MS, INFORMER_BACKOFF_MAX_MS, INFORMER_BACKOFF_RESET_MS } from './informer.js';
export type { InformerOptions } from './informer.js';
export {
  certificateSigningRequestsApi,
  eventsApi,
  leasesApi,
  nodesApi,
  podsApi,
  subjectAccessReviewsApi,
  tokenReviewsApi,
} from './resources.js';
