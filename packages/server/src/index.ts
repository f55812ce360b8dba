export { createHealthzServer, createReadOnlyServer, podListBody } from './servers.js';
export type { HealthzServerOptions, ReadOnlyServerOptions } from './servers.js';
export { installHealthz, pingHealthz, syncLoopHealthz } from './healthz.js';
export type { HealthzCheck, HealthzOptions, SyncLoopHealthzOptions } from './healthz.js';
export { createRouter, sendErrorString, sendJson, sendText } from './router.js';
export type { Router, RouterOptions, RouteHandler, RouteContext, HttpMethod } from './router.js';
export { createKubeletHttpServer } from './http-server.js';
export type { KubeletHttpServer, KubeletHttpServerOptions } from './http-server.js';
export { ServerError } from './errors.js';
export type { ServerErrorCode } from './errors.js';
export { installContainerLogs } from './container-logs-route.js';
export type { ContainerLogsSource } from './container-logs-route.js';
export { installMetrics } from './metrics-route.js';
export type { MetricsExposition, MetricsRouteOptions } from './metrics-route.js';
export { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from './auth.js';
export type {
  AuthenticationResult,
  Authenticator,
  AuthorizationAttributes,
  AuthorizationDecision,
  Authorizer,
  SubjectAccessReviewer,
  TokenReviewer,
  UserInfo,
} from './auth.js';
export {
  createWebSocketProtocolAuthenticator,
  createWebhookTokenAuthenticator,
  createX509Authenticator,
  DEFAULT_TOKEN_CACHE_TTL_MS,
  unionAuthenticator,
} from './authenticators.js';
export type {
  TokenAuthenticator,
  UnionAuthenticatorOptions,
  WebSocketProtocolAuthenticatorOptions,
  WebhookTokenAuthenticator,
  WebhookTokenAuthenticatorOptions,
  X509AuthenticatorOptions,
} from './authenticators.js';
export {
  alwaysAllowAuthorizer,
  createWebhookAuthorizer,
  DEFAULT_AUTHORIZED_TTL_MS,
  DEFAULT_UNAUTHORIZED_TTL_MS,
  nodeRequestAttributes,
  subjectAccessReviewFor,
} from './authorizers.js';
export type { WebhookAuthorizerOptions } from './authorizers.js';
export { createDynamicClientCA, DEFAULT_CLIENT_CA_CHECK_INTERVAL_MS } from './client-ca.js';
export type { ClientCAProvider, DynamicClientCA, DynamicClientCAOptions, FileWatch } from './client-ca.js';
export { createAuthFilter } from './auth-filter.js';
export type { AuthFilter, AuthFilterOptions, RequestListener } from './auth-filter.js';
export { createKubeletServer, KUBELET_MAX_HEADER_BYTES } from './kubelet-server.js';
export type { KubeletServer, KubeletServerOptions, KubeletServerTlsOptions } from './kubelet-server.js';
export { installStreaming, portsFromQuery, streamOptionsFromQuery } from './streaming-route.js';
export type { ContainerTarget, StreamingSource, StreamOptions } from './streaming-route.js';
export { DEBUGGING_PATHS, installConfigz, installDebuggingDisabled, installRunningPods } from './debugging-routes.js';
export type { RunningPodSummary } from './debugging-routes.js';
export { installNodeLogs } from './node-logs-route.js';
export {
  DEBUG_FLAGS_PATH,
  installDebugFlags,
  installDebugFlagsDisabled,
  installProfiling,
  installProfilingDisabled,
  PPROF_PATH,
} from './profiling-routes.js';
export type { CpuProfiler, DebugFlagsOptions, ProfilingOptions, VerbositySetter } from './profiling-routes.js';
export type { NodeLogsOptions } from './node-logs-route.js';
