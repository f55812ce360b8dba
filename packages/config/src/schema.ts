import { isIP } from 'node:net';
import { z } from 'zod';
import { durationError, parseDuration } from './duration.js';
import { evictionGracePeriodError, evictionValueError } from './eviction.js';
import { isValidQuantity } from '@kubelet-ts/api';

export const KUBELET_CONFIG_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';

// ---- field helpers: each rejects with a reason that names the bad value ----

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function intIn(min: number, max: number, reason = `must be between ${min} and ${max}`) {
  return z.number().int({ error: 'must be an integer' }).min(min, { error: reason }).max(max, { error: reason });
}

const int32 = () => intIn(INT32_MIN, INT32_MAX, 'must fit in a 32-bit integer');
const int64 = () => z.number().int({ error: 'must be an integer' }).min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt32 = () => intIn(0, INT32_MAX, 'must not be a negative number');
const port = () => intIn(0, 65535);
const percent = () => intIn(0, 100);

const duration = () =>
  z.string().superRefine((value, ctx) => {
    if (durationError(value) !== undefined) ctx.addIssue({ code: 'custom', message: `invalid duration ${JSON.stringify(value)}` });
  });

/** A duration above zero (a period something runs at). */
const positiveDuration = () =>
  duration().refine((value) => durationError(value) !== undefined || parseDuration(value) > 0, {
    error: (iss) => `${JSON.stringify(iss.input)}: must be greater than zero`,
  });

const quantity = () => z.string().refine(isValidQuantity, { error: (iss) => `invalid quantity ${JSON.stringify(iss.input)}` });

const ip = () => z.string().refine((v) => isIP(v) !== 0, { error: (iss) => `${JSON.stringify(iss.input)} is not a valid IP address` });

function oneOf<const T extends readonly string[]>(values: T) {
  const allowed: ReadonlySet<string> = new Set(values);
  return z.string().refine((v): v is T[number] => allowed.has(v), {
    error: (iss) => `unsupported value ${JSON.stringify(iss.input)}: must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  }) as unknown as z.ZodType<T[number], string>;
}

const stringMap = () => z.record(z.string(), z.string());

/** An evictionHard/evictionSoft/evictionMinimumReclaim map: known signals, quantity or percentage values. */
const evictionMap = () =>
  stringMap().superRefine((map, ctx) => {
    for (const [signal, value] of Object.entries(map)) {
      const reason = evictionValueError(signal, value);
      if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason, path: [signal] });
    }
  });

const evictionGraceMap = () =>
  stringMap().superRefine((map, ctx) => {
    for (const [signal, value] of Object.entries(map)) {
      const reason = evictionGracePeriodError(signal, value);
      if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason, path: [signal] });
    }
  });

const quantityMap = () => z.record(z.string(), quantity());

const percentageString = () =>
  z.string().refine((v) => /^\d+(\.\d+)?%$/.test(v) && Number(v.slice(0, -1)) <= 100, {
    error: (iss) => `invalid percentage ${JSON.stringify(iss.input)}`,
  });

// ---- nested types ----

const taintSchema = z.strictObject({
  key: z.string().min(1, { error: 'required' }),
  value: z.string().optional(),
  effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const),
  timeAdded: z.string().optional(),
});

const memoryReservationSchema = z.strictObject({
  numaNode: int32(),
  limits: quantityMap(),
});

const shutdownGracePeriodByPodPrioritySchema = z.strictObject({
  priority: int32(),
  shutdownGracePeriodSeconds: int64(),
});

const loggingOutputOptions = z.strictObject({
  splitStream: z.boolean().optional(),
  infoBufferSize: quantity().optional(),
});

const loggingSchema = z.strictObject({
  format: z.string().optional(),
  // component-base accepts a Go duration string or nanoseconds as a number.
  flushFrequency: z.union([duration(), int64()]).optional(),
  verbosity: intIn(0, 2 ** 32 - 1).optional(),
  vmodule: z.array(z.strictObject({ filePattern: z.string(), verbosity: intIn(0, 2 ** 32 - 1) })).optional(),
  options: z.strictObject({ text: loggingOutputOptions.optional(), json: loggingOutputOptions.optional() }).optional(),
});

const authenticationSchema = z.strictObject({
  x509: z.strictObject({ clientCAFile: z.string().optional() }).optional(),
  webhook: z.strictObject({ enabled: z.boolean().optional(), cacheTTL: duration().optional() }).optional(),
  anonymous: z.strictObject({ enabled: z.boolean().optional() }).optional(),
});

const authorizationSchema = z.strictObject({
  mode: oneOf(['AlwaysAllow', 'Webhook'] as const).optional(),
  webhook: z.strictObject({ cacheAuthorizedTTL: duration().optional(), cacheUnauthorizedTTL: duration().optional() }).optional(),
});

export const ENFORCE_NODE_ALLOCATABLE_OPTIONS = [
  'none',
  'pods',
  'system-reserved',
  'system-reserved-compressible',
  'kube-reserved',
  'kube-reserved-compressible',
] as const;

/**
 * Every field of KubeletConfiguration (kubelet.config.k8s.io/v1beta1), as its JSON/YAML wire form.
 * Objects are strict: a field that upstream does not define is an error.
 */
export const kubeletConfigurationSchema = z.strictObject({
  apiVersion: z
    .string()
    .refine((v) => v === KUBELET_CONFIG_API_VERSION, {
      error: (iss) => `unsupported apiVersion ${JSON.stringify(iss.input)}: must be "${KUBELET_CONFIG_API_VERSION}"`,
    })
    .optional(),
  kind: z
    .string()
    .refine((v) => v === KUBELET_CONFIG_KIND, {
      error: (iss) => `unsupported kind ${JSON.stringify(iss.input)}: must be "${KUBELET_CONFIG_KIND}"`,
    })
    .optional(),
  enableServer: z.boolean().optional(),
  staticPodPath: z.string().optional(),
  podLogsDir: z.string().optional(),
  syncFrequency: duration().optional(),
  fileCheckFrequency: duration().optional(),
  httpCheckFrequency: duration().optional(),
  staticPodURL: z.string().optional(),
  staticPodURLHeader: z.record(z.string(), z.array(z.string())).optional(),
  address: ip().optional(),
  port: port().optional(),
  readOnlyPort: port().optional(),
  tlsCertFile: z.string().optional(),
  tlsPrivateKeyFile: z.string().optional(),
  tlsCipherSuites: z.array(z.string()).optional(),
  tlsMinVersion: z.string().optional(),
  rotateCertificates: z.boolean().optional(),
  serverTLSBootstrap: z.boolean().optional(),
  authentication: authenticationSchema.optional(),
  authorization: authorizationSchema.optional(),
  registryPullQPS: nonNegativeInt32().optional(),
  registryBurst: nonNegativeInt32().optional(),
  imagePullCredentialsVerificationPolicy: oneOf([
    'NeverVerify',
    'NeverVerifyPreloadedImages',
    'NeverVerifyAllowlistedImages',
    'AlwaysVerify',
  ] as const).optional(),
  preloadedImagesVerificationAllowlist: z.array(z.string()).optional(),
  eventRecordQPS: nonNegativeInt32().optional(),
  eventBurst: nonNegativeInt32().optional(),
  enableDebuggingHandlers: z.boolean().optional(),
  enableContentionProfiling: z.boolean().optional(),
  healthzPort: port().optional(),
  healthzBindAddress: ip().optional(),
  oomScoreAdj: intIn(-1000, 1000).optional(),
  clusterDomain: z.string().optional(),
  clusterDNS: z.array(ip()).optional(),
  streamingConnectionIdleTimeout: duration().optional(),
  nodeStatusUpdateFrequency: duration().optional(),
  nodeStatusReportFrequency: duration().optional(),
  nodeLeaseDurationSeconds: nonNegativeInt32().optional(),
  imageMinimumGCAge: duration().optional(),
  imageMaximumGCAge: duration().optional(),
  imageGCHighThresholdPercent: percent().optional(),
  imageGCLowThresholdPercent: percent().optional(),
  volumeStatsAggPeriod: duration().optional(),
  kubeletCgroups: z.string().optional(),
  systemCgroups: z.string().optional(),
  cgroupRoot: z.string().optional(),
  cgroupsPerQOS: z.boolean().optional(),
  cgroupDriver: oneOf(['cgroupfs', 'systemd'] as const).optional(),
  cpuManagerPolicy: oneOf(['none', 'static'] as const).optional(),
  singleProcessOOMKill: z.boolean().optional(),
  cpuManagerPolicyOptions: stringMap().optional(),
  cpuManagerReconcilePeriod: duration().optional(),
  memoryManagerPolicy: oneOf(['None', 'Static'] as const).optional(),
  topologyManagerPolicy: oneOf(['none', 'best-effort', 'restricted', 'single-numa-node'] as const).optional(),
  topologyManagerScope: oneOf(['container', 'pod'] as const).optional(),
  topologyManagerPolicyOptions: stringMap().optional(),
  qosReserved: z.record(z.string(), percentageString()).optional(),
  runtimeRequestTimeout: duration().optional(),
  hairpinMode: oneOf(['promiscuous-bridge', 'hairpin-veth', 'none'] as const).optional(),
  maxPods: nonNegativeInt32().optional(),
  podCIDR: z.string().optional(),
  podPidsLimit: int64().optional(),
  resolvConf: z.string().optional(),
  runOnce: z.boolean().optional(),
  cpuCFSQuota: z.boolean().optional(),
  cpuCFSQuotaPeriod: duration().optional(),
  nodeStatusMaxImages: intIn(-1, INT32_MAX, 'must be -1 or greater').optional(),
  maxOpenFiles: int64().min(0, { error: 'must not be a negative number' }).optional(),
  contentType: z.string().optional(),
  kubeAPIQPS: nonNegativeInt32().optional(),
  kubeAPIBurst: nonNegativeInt32().optional(),
  serializeImagePulls: z.boolean().optional(),
  maxParallelImagePulls: intIn(1, INT32_MAX, 'must be a positive number').optional(),
  evictionHard: evictionMap().optional(),
  evictionSoft: evictionMap().optional(),
  evictionSoftGracePeriod: evictionGraceMap().optional(),
  evictionPressureTransitionPeriod: duration().optional(),
  evictionMaxPodGracePeriod: int32().optional(),
  evictionMinimumReclaim: evictionMap().optional(),
  mergeDefaultEvictionSettings: z.boolean().optional(),
  podsPerCore: nonNegativeInt32().optional(),
  enableControllerAttachDetach: z.boolean().optional(),
  protectKernelDefaults: z.boolean().optional(),
  makeIPTablesUtilChains: z.boolean().optional(),
  iptablesMasqueradeBit: intIn(0, 31).optional(),
  iptablesDropBit: intIn(0, 31).optional(),
  featureGates: z.record(z.string(), z.boolean()).optional(),
  failSwapOn: z.boolean().optional(),
  memorySwap: z.strictObject({ swapBehavior: oneOf(['', 'NoSwap', 'LimitedSwap'] as const).optional() }).optional(),
  containerLogMaxSize: quantity().optional(),
  containerLogMaxFiles: int32().optional(),
  containerLogMaxWorkers: intIn(1, INT32_MAX, 'must be greater than or equal to 1').optional(),
  containerLogMonitorInterval: duration().optional(),
  configMapAndSecretChangeDetectionStrategy: oneOf(['Get', 'Cache', 'Watch'] as const).optional(),
  systemReserved: quantityMap().optional(),
  kubeReserved: quantityMap().optional(),
  reservedSystemCPUs: z.string().optional(),
  showHiddenMetricsForVersion: z.string().optional(),
  systemReservedCgroup: z.string().optional(),
  kubeReservedCgroup: z.string().optional(),
  enforceNodeAllocatable: z.array(oneOf(ENFORCE_NODE_ALLOCATABLE_OPTIONS)).optional(),
  allowedUnsafeSysctls: z.array(z.string()).optional(),
  volumePluginDir: z.string().optional(),
  providerID: z.string().optional(),
  kernelMemcgNotification: z.boolean().optional(),
  logging: loggingSchema.optional(),
  enableSystemLogHandler: z.boolean().optional(),
  enableSystemLogQuery: z.boolean().optional(),
  shutdownGracePeriod: duration().optional(),
  shutdownGracePeriodCriticalPods: duration().optional(),
  shutdownGracePeriodByPodPriority: z.array(shutdownGracePeriodByPodPrioritySchema).optional(),
  crashLoopBackOff: z.strictObject({ maxContainerRestartPeriod: duration().optional() }).optional(),
  reservedMemory: z.array(memoryReservationSchema).optional(),
  enableProfilingHandler: z.boolean().optional(),
  enableDebugFlagsHandler: z.boolean().optional(),
  seccompDefault: z.boolean().optional(),
  memoryThrottlingFactor: z.number().optional(),
  registerWithTaints: z.array(taintSchema).optional(),
  registerNode: z.boolean().optional(),
  tracing: z.strictObject({ endpoint: z.string().optional(), samplingRatePerMillion: int32().optional() }).optional(),
  localStorageCapacityIsolation: z.boolean().optional(),
  containerRuntimeEndpoint: z.string().optional(),
  imageServiceEndpoint: z.string().optional(),
  failCgroupV1: z.boolean().optional(),
  userNamespaces: z.strictObject({ idsPerPod: int64().optional() }).optional(),
  // kubelet-ts extensions (no upstream field: upstream fixes these periods in code). Absent means
  // upstream's value; integration tests shorten them to see effects within seconds.
  /** How often the eviction manager checks the node (upstream evictionMonitoringPeriod, 10 s). */
  evictionMonitoringPeriod: positiveDuration().optional(),
  /** How often image GC runs (upstream ImageGCPeriod, 5 min). */
  imageGCPeriod: positiveDuration().optional(),
  /** How long the Summary API's figures are cached (upstream: cadvisor's housekeeping interval, 10 s). */
  statsHousekeepingInterval: positiveDuration().optional(),
  /**
   * Where the `<pod>_<namespace>_<container>-<id>.log` symlinks to container logs go (upstream
   * ContainerLogsDir, fixed at /var/log/containers). A kubelet under test must not write to the real one.
   */
  containerLogsDir: z.string().optional(),
});

/** A KubeletConfiguration document as written in a file: every field optional. */
export type KubeletConfigurationInput = z.infer<typeof kubeletConfigurationSchema>;

export type Taint = z.infer<typeof taintSchema>;
export type MemoryReservation = z.infer<typeof memoryReservationSchema>;
export type LoggingConfiguration = z.infer<typeof loggingSchema>;
