import { normalizeDuration, parseDuration } from './duration.js';
import { DEFAULT_EVICTION_HARD } from './eviction.js';
import { KUBELET_CONFIG_API_VERSION, KUBELET_CONFIG_KIND } from './schema.js';
import type { KubeletConfigurationInput, LoggingConfiguration } from './schema.js';

/**
 * How a field counts as "not set" before its default applies. Upstream's SetDefaults treats the Go zero
 * value of a non-pointer field as unset (`port: 0` becomes 10250, `syncFrequency: 0s` becomes 1m), while a
 * pointer field is defaulted only when absent (`healthzPort: 0` stays 0 and disables healthz).
 */
type Unset = 'absent' | 'zero';

const DEFAULTS = [
  ['enableServer', true, 'absent'],
  ['staticPodPath', '', 'absent'],
  ['staticPodURL', '', 'absent'],
  ['syncFrequency', '1m0s', 'zero'],
  ['fileCheckFrequency', '20s', 'zero'],
  ['httpCheckFrequency', '20s', 'zero'],
  ['address', '0.0.0.0', 'zero'],
  ['port', 10250, 'zero'],
  ['readOnlyPort', 0, 'absent'],
  ['registryPullQPS', 5, 'absent'],
  ['registryBurst', 10, 'zero'],
  ['eventRecordQPS', 50, 'absent'],
  ['eventBurst', 100, 'zero'],
  ['enableDebuggingHandlers', true, 'absent'],
  ['healthzPort', 10248, 'absent'],
  ['healthzBindAddress', '127.0.0.1', 'zero'],
  ['oomScoreAdj', -999, 'absent'],
  ['streamingConnectionIdleTimeout', '4h0m0s', 'zero'],
  // nodeStatusReportFrequency is special-cased below (it follows an explicit nodeStatusUpdateFrequency).
  ['nodeStatusUpdateFrequency', '10s', 'zero'],
  ['nodeLeaseDurationSeconds', 40, 'zero'],
  ['imageMinimumGCAge', '2m0s', 'zero'],
  ['imageMaximumGCAge', '0s', 'absent'],
  ['imageGCHighThresholdPercent', 85, 'absent'],
  ['imageGCLowThresholdPercent', 80, 'absent'],
  ['volumeStatsAggPeriod', '1m0s', 'zero'],
  ['cgroupsPerQOS', true, 'absent'],
  ['cgroupDriver', 'cgroupfs', 'zero'],
  ['cpuManagerPolicy', 'none', 'zero'],
  ['cpuManagerReconcilePeriod', '10s', 'zero'],
  ['memoryManagerPolicy', 'None', 'zero'],
  ['topologyManagerPolicy', 'none', 'zero'],
  ['topologyManagerScope', 'container', 'zero'],
  ['runtimeRequestTimeout', '2m0s', 'zero'],
  ['hairpinMode', 'promiscuous-bridge', 'zero'],
  ['maxPods', 110, 'zero'],
  ['resolvConf', '/etc/resolv.conf', 'absent'],
  ['cpuCFSQuota', true, 'absent'],
  ['cpuCFSQuotaPeriod', '100ms', 'absent'],
  ['nodeStatusMaxImages', 50, 'absent'],
  ['maxOpenFiles', 1_000_000, 'zero'],
  ['contentType', 'application/vnd.kubernetes.protobuf', 'zero'],
  ['kubeAPIQPS', 50, 'absent'],
  ['kubeAPIBurst', 100, 'zero'],
  ['evictionPressureTransitionPeriod', '5m0s', 'zero'],
  ['mergeDefaultEvictionSettings', false, 'absent'],
  ['enableControllerAttachDetach', true, 'absent'],
  ['makeIPTablesUtilChains', true, 'absent'],
  ['iptablesMasqueradeBit', 14, 'absent'],
  ['iptablesDropBit', 15, 'absent'],
  ['failSwapOn', true, 'absent'],
  ['containerLogMaxSize', '10Mi', 'zero'],
  ['containerLogMaxFiles', 5, 'absent'],
  ['containerLogMaxWorkers', 1, 'absent'],
  ['containerLogMonitorInterval', '10s', 'absent'],
  ['configMapAndSecretChangeDetectionStrategy', 'Watch', 'zero'],
  ['enforceNodeAllocatable', ['pods'], 'absent'],
  ['volumePluginDir', '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/', 'zero'],
  ['enableSystemLogHandler', true, 'absent'],
  ['enableProfilingHandler', true, 'absent'],
  ['enableDebugFlagsHandler', true, 'absent'],
  ['seccompDefault', false, 'absent'],
  ['failCgroupV1', false, 'absent'],
  ['memoryThrottlingFactor', 0.9, 'absent'],
  ['registerNode', true, 'absent'],
  ['localStorageCapacityIsolation', true, 'absent'],
  ['containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock', 'zero'],
  ['podLogsDir', '/var/log/pods', 'zero'],
  // kubelet-ts: upstream's fixed ContainerLogsDir.
  ['containerLogsDir', '/var/log/containers', 'zero'],
  ['shutdownGracePeriod', '0s', 'absent'],
  ['shutdownGracePeriodCriticalPods', '0s', 'absent'],
] as const satisfies ReadonlyArray<readonly [keyof KubeletConfigurationInput, unknown, Unset]>;

type DefaultedKey = (typeof DEFAULTS)[number][0] | 'nodeStatusReportFrequency' | 'serializeImagePulls' | 'evictionHard';

/** The defaulted authentication block. */
export interface KubeletAuthentication {
  x509: { clientCAFile?: string };
  webhook: { enabled: boolean; cacheTTL: string };
  anonymous: { enabled: boolean };
}

/** The defaulted authorization block. */
export interface KubeletAuthorization {
  mode: 'AlwaysAllow' | 'Webhook';
  webhook: { cacheAuthorizedTTL: string; cacheUnauthorizedTTL: string };
}

/**
 * A KubeletConfiguration with upstream defaults applied, in wire form: durations are Go duration
 * strings in Go's canonical format (`1m0s`); read them with `durationMs`.
 */
export type KubeletConfiguration = Omit<
  KubeletConfigurationInput,
  DefaultedKey | 'apiVersion' | 'kind' | 'authentication' | 'authorization' | 'logging'
> &
  Required<Pick<KubeletConfigurationInput, DefaultedKey>> & {
    apiVersion: typeof KUBELET_CONFIG_API_VERSION;
    kind: typeof KUBELET_CONFIG_KIND;
    authentication: KubeletAuthentication;
    authorization: KubeletAuthorization;
    logging: LoggingConfiguration & { format: string; flushFrequency: string | number; verbosity: number };
  };

/** Every field holding a Go duration, as dotted paths; used to normalise them to Go's format. */
export const DURATION_FIELDS: readonly string[] = [
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'authentication.webhook.cacheTTL',
  'authorization.webhook.cacheAuthorizedTTL',
  'authorization.webhook.cacheUnauthorizedTTL',
  'streamingConnectionIdleTimeout',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'imageMinimumGCAge',
  'imageMaximumGCAge',
  'volumeStatsAggPeriod',
  'cpuManagerReconcilePeriod',
  'runtimeRequestTimeout',
  'cpuCFSQuotaPeriod',
  'evictionPressureTransitionPeriod',
  'containerLogMonitorInterval',
  'shutdownGracePeriod',
  'shutdownGracePeriodCriticalPods',
  'crashLoopBackOff.maxContainerRestartPeriod',
  'evictionMonitoringPeriod',
  'imageGCPeriod',
  'statsHousekeepingInterval',
];

function isZero(value: unknown, defaultValue: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') {
    // A duration field's zero is any spelling of 0 ("0s", "0m").
    if (typeof defaultValue === 'string' && /\d(ns|us|µs|μs|ms|s|m|h)$/.test(defaultValue)) {
      try {
        return parseDuration(value) === 0;
      } catch {
        return false;
      }
    }
    return value === '';
  }
  return false;
}

const isDurationZero = (value: string | undefined): boolean => value === undefined || isZero(value, '0s');

export interface DefaultingOptions {
  /**
   * Apply the kubelet's legacy command-line defaults (used upstream when no `--config` file is given):
   * readOnlyPort 10255. Upstream's legacy defaults also turn anonymous authentication on, webhook
   * authentication off and authorization to AlwaysAllow; kubelet-ts keeps the secure ones there too
   * (deliberately: an authenticated server that lets anyone exec is never a default), so only flags set
   * them.
   */
  legacy?: boolean;
}

/**
 * Applies upstream's SetDefaults_KubeletConfiguration (pkg/kubelet/apis/config/v1beta1/defaults.go) and
 * the kubelet's evictionHard default, then normalises every duration to Go's format. Does not mutate `input`.
 */
export function applyKubeletConfigurationDefaults(input: KubeletConfigurationInput, options: DefaultingOptions = {}): KubeletConfiguration {
  const out: Record<string, unknown> = structuredClone(input) as Record<string, unknown>;
  out['apiVersion'] = KUBELET_CONFIG_API_VERSION;
  out['kind'] = KUBELET_CONFIG_KIND;

  // nodeStatusReportFrequency follows an explicitly set nodeStatusUpdateFrequency, for backward compatibility.
  if (isDurationZero(input.nodeStatusReportFrequency)) {
    out['nodeStatusReportFrequency'] = isDurationZero(input.nodeStatusUpdateFrequency) ? '5m0s' : input.nodeStatusUpdateFrequency;
  }
  for (const [key, value, unset] of DEFAULTS) {
    const current = out[key];
    if (unset === 'absent' ? current === undefined : isZero(current, value)) out[key] = structuredClone(value);
  }
  // negative podPidsLimit means "node allocatable pid limit", spelled -1
  if (input.podPidsLimit === undefined || input.podPidsLimit < 0) out['podPidsLimit'] = -1;
  // serializeImagePulls defaults to false only when parallel pulls were asked for.
  if (input.serializeImagePulls === undefined) {
    out['serializeImagePulls'] = input.maxParallelImagePulls === undefined || input.maxParallelImagePulls < 2;
  }
  // matches kubelet's loadConfigFile: the default map only when the field is absent altogether.
  if (input.evictionHard === undefined) out['evictionHard'] = { ...DEFAULT_EVICTION_HARD };

  const authn = input.authentication ?? {};
  out['authentication'] = {
    x509: { ...authn.x509 },
    webhook: {
      enabled: authn.webhook?.enabled ?? true,
      cacheTTL: isDurationZero(authn.webhook?.cacheTTL) ? '2m0s' : authn.webhook?.cacheTTL,
    },
    anonymous: { enabled: authn.anonymous?.enabled ?? false },
  };
  const authz = input.authorization ?? {};
  out['authorization'] = {
    mode: authz.mode ?? 'Webhook',
    webhook: {
      cacheAuthorizedTTL: isDurationZero(authz.webhook?.cacheAuthorizedTTL) ? '5m0s' : authz.webhook?.cacheAuthorizedTTL,
      cacheUnauthorizedTTL: isDurationZero(authz.webhook?.cacheUnauthorizedTTL) ? '30s' : authz.webhook?.cacheUnauthorizedTTL,
    },
  };
  if (options.legacy && input.readOnlyPort === undefined) out['readOnlyPort'] = 10255;

  // logsapi.SetRecommendedLoggingConfiguration
  const logging = input.logging ?? {};
  out['logging'] = {
    ...logging,
    format: logging.format === undefined || logging.format === '' ? 'text' : logging.format,
    flushFrequency: logging.flushFrequency === undefined || logging.flushFrequency === 0 ? '5s' : logging.flushFrequency,
    verbosity: logging.verbosity ?? 0,
  };

  normalizeDurations(out);
  return out as KubeletConfiguration;
}

/** Rewrites every duration field present in `config` to Go's canonical format, in place. */
export function normalizeDurations(config: Record<string, unknown>): void {
  for (const path of DURATION_FIELDS) {
    const keys = path.split('.');
    let holder: Record<string, unknown> | undefined = config;
    for (const key of keys.slice(0, -1)) {
      const next: unknown = holder?.[key];
      holder = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : undefined;
    }
    const last = keys[keys.length - 1] as string;
    const value = holder?.[last];
    if (holder !== undefined && typeof value === 'string') {
      try {
        holder[last] = normalizeDuration(value);
      } catch {
        // invalid values are reported by validation; leave them as written
      }
    }
  }
  const logging = config['logging'];
  if (typeof logging === 'object' && logging !== null) {
    const l = logging as Record<string, unknown>;
    if (typeof l['flushFrequency'] === 'string') {
      try {
        l['flushFrequency'] = normalizeDuration(l['flushFrequency']);
      } catch {
        // reported by validation
      }
    }
  }
}

/** The evictionHard map that applies, honouring mergeDefaultEvictionSettings. */
export function effectiveEvictionHard(
  config: Pick<KubeletConfiguration, 'evictionHard' | 'mergeDefaultEvictionSettings'>,
): Record<string, string> {
  return config.mergeDefaultEvictionSettings ? { ...DEFAULT_EVICTION_HARD, ...config.evictionHard } : { ...config.evictionHard };
}
