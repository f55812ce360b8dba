/** core/v1 SecretTypeDockerConfigJson and its data key (the `config.json` format: `{"auths": {…}}`). */
export const SECRET_TYPE_DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
export const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
/** core/v1 SecretTypeDockercfg and its data key (the legacy `~/.dockercfg` format: a bare map of registries). */
export const SECRET_TYPE_DOCKERCFG = 'kubernetes.io/dockercfg';
export const DOCKERCFG_KEY = '.dockercfg';

/** The CredentialProviderConfig kind and the kubelet.config.k8s.io versions that carry it (upstream 1.34). */
export const CREDENTIAL_PROVIDER_CONFIG_KIND = 'CredentialProviderConfig';
export const CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS = [
  'kubelet.config.k8s.io/v1',
  'kubelet.config.k8s.io/v1beta1',
  'kubelet.config.k8s.io/v1alpha1',
] as const;

/** The exec plugin protocol's API versions (a provider's `apiVersion`), sorted as upstream lists them in errors. */
export const CREDENTIAL_PROVIDER_API_VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1',
  'credentialprovider.kubelet.k8s.io/v1alpha1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
] as const;

/** Matches kubelet: a catch-all timeout of one minute for every exec plugin run. */
export const PLUGIN_EXEC_TIMEOUT_MS = 60_000;

/** Matches kubelet: the node-wide docker config files are re-read at most every 5 minutes. */
export const NODE_DOCKER_CONFIG_CACHE_LIFETIME_MS = 5 * 60_000;

/** Matches kubelet: expired plugin cache entries are purged at most every 15 minutes. */
export const PLUGIN_CACHE_PURGE_INTERVAL_MS = 15 * 60_000;

/** Upstream's plugin metrics (pkg/credentialprovider/plugin/metrics.go), labelled by `plugin_name`. */
export const METRIC_PLUGIN_DURATION = 'kubelet_credential_provider_plugin_duration';
export const METRIC_PLUGIN_ERRORS = 'kubelet_credential_provider_plugin_errors';
