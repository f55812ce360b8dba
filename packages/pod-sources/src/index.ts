export { createFileSource, DEFAULT_CHECK_FREQUENCY_MS, DEFAULT_MAX_MANIFEST_BYTES, DEFAULT_WATCH_DEBOUNCE_MS } from './file-source.js';
export type { FileSourceOptions } from './file-source.js';
export { createHttpSource } from './http-source.js';
export type { HttpSourceOptions, FetchFn } from './http-source.js';
export { createApiSource } from './api-source.js';
export type { ApiPodSource, ApiSourceOptions, MirrorPodsListener, PodInformer, PodInformerEventHandler } from './api-source.js';
export { createPodConfig } from './pod-config.js';
export type { PodConfig, PodConfigOptions } from './pod-config.js';
export { applyStaticPodDefaults, staticPodUID, decodeStaticPod, findApiObjectReferences } from './static-pod.js';
export type { StaticPodOrigin, DecodeStaticPodResult, DecodeStaticPodOptions, FindApiObjectReferencesOptions } from './static-pod.js';
export { PodSourceError, formatSourceError } from './errors.js';
export type { PodSourceErrorCode } from './errors.js';
export type {
  PodSource,
  SourceContext,
  SourceEvent,
  SourceError,
  EmitSourceEvent,
  PodUpdate,
  PodOperation,
  StaticPodObjectReference,
} from './types.js';
