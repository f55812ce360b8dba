export { ProbeError, execTimeoutError } from './errors.js';
export type { ProbeErrorCode } from './errors.js';
export { createProbeManager } from './probe-manager.js';
export type {
  LivenessStartupResults,
  ProbeManager,
  ProbeManagerOptions,
  ProbeWorkerInfo,
  ReadinessResults,
  StartupResults,
} from './probe-manager.js';
export { createProber, httpProbeRequest, probeSpec, probeTypeName, DEFAULT_USER_AGENT_VERSION } from './prober.js';
export type { ProberOptions } from './prober.js';
export { createResultsManager } from './results.js';
export type { ResultUpdate, ResultsManager } from './results.js';
export { createCriExecFn } from './cri-exec.js';
export type { CriExecOptions } from './cri-exec.js';
export { DURATION_BUCKETS } from './metrics.js';
export type { CounterSample, HistogramSample, ProbeDurationLabels, ProbeTotalLabels, ProberMetrics } from './metrics.js';
export { doHttpProbe, MAX_RESPONSE_BODY_BYTES } from './probers/http.js';
export type { HttpProbeRequest } from './probers/http.js';
export { doTcpProbe } from './probers/tcp.js';
export { doGrpcProbe, ServingStatus, HEALTH_CHECK_PATH, encodeHealthCheckResponse, decodeHealthCheckRequest } from './probers/grpc.js';
export { doExecProbe } from './probers/exec.js';
export type {
  ContainerRef,
  ExecFn,
  ExecResult,
  ProbeOutcome,
  ProbeResult,
  ProbeResultChange,
  ProbeTarget,
  ProbeType,
  Prober,
} from './types.js';
