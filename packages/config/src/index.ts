export { loadKubeletConfiguration } from './load.js';
export type { LoadKubeletConfigurationOptions, LoadKubeletConfigurationResult, ConfigSources } from './load.js';
export { parseKubeletArgs, kubeletFlagUsage } from './flags.js';
export { defaultMaxParallelStarts, effectiveMaxParallelStarts, validateKubeletFlags } from './flag-validation.js';
export type { KubeletFlags, ParsedKubeletArgs } from './flags.js';
export {
  KUBELET_FLAGS,
  KUBELET_CLI_FLAGS,
  KUBELET_CONFIG_FLAGS,
  CONFIG_FLAG_DEPRECATION,
  CADVISOR_FLAG_DEPRECATION,
} from './flag-table.js';
export type { FlagSpec, FlagKind, KubeletFlagField } from './flag-table.js';
export { applyKubeletConfigurationDefaults, DURATION_FIELDS, effectiveEvictionHard } from './defaults.js';
export type { KubeletConfiguration, KubeletAuthentication, KubeletAuthorization, DefaultingOptions } from './defaults.js';
export { kubeletConfigurationSchema, KUBELET_CONFIG_API_VERSION, KUBELET_CONFIG_KIND, ENFORCE_NODE_ALLOCATABLE_OPTIONS } from './schema.js';
export type { KubeletConfigurationInput, Taint, MemoryReservation, LoggingConfiguration } from './schema.js';
export { validateKubeletConfiguration, validateDocument } from './validate.js';
export type { FieldIssue } from './validate.js';
export { parseDuration, formatDuration, normalizeDuration, durationMs, isDuration } from './duration.js';
export { parseEvictionMap, parseEvictionThresholdValue, isEvictionSignal, EVICTION_SIGNALS, DEFAULT_EVICTION_HARD } from './eviction.js';
export type { EvictionSignal, EvictionThresholdValue } from './eviction.js';
export { summarizeConfiguration } from './summary.js';
export type { ConfigurationSummary } from './summary.js';
export { ConfigError, formatConfigIssue } from './errors.js';
export type { ConfigIssue, ConfigErrorCode } from './errors.js';
export { resolveFeatureGates, KUBELET_FEATURE_GATES } from './feature-gates.js';
export type { FeatureGates, FeatureGateResult } from './feature-gates.js';
export type { FeatureGateSpec, FeatureStage } from './gen/upstream-feature-gates.js';
export { CONFIG_FIELD_SETTINGS, CLI_FLAG_SETTINGS } from './settings-registry.js';
export type { SettingSpec, SettingStatus } from './settings-registry.js';
export { refusedSettings } from './refusals.js';
export type { RefusedSetting } from './refusals.js';
export { renderConfigurationDoc } from './config-docs.js';
export { LENIENT_DECODING_MESSAGE } from './decode.js';
export type { UnknownFieldsMode } from './decode.js';
