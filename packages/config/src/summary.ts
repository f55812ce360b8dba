import type { KubeletConfiguration } from './defaults.js';
import type { KubeletFlags } from './flags.js';

/** The handful of settings worth one startup log line. */
export interface ConfigurationSummary {
  mode: 'standalone' | 'api-server';
  nodeName?: string;
  configFile?: string;
  rootDir: string;
  containerRuntimeEndpoint: string;
  staticPodPath: string;
  staticPodURL: string;
  server: string;
  readOnlyPort: number;
  healthz: string;
  cgroupDriver: string;
  cgroupsPerQOS: boolean;
  cgroupRoot: string;
  maxPods: number;
  syncFrequency: string;
  evictionHard: string;
  featureGates: string;
}

const joinMap = (map: Record<string, string | boolean> | undefined, sep: string): string =>
  Object.entries(map ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}${sep}${String(v)}`)
    .join(',');

/** A flat, log-friendly summary: `logger.info('kubelet configuration', summarizeConfiguration(config, flags))`. */
export function summarizeConfiguration(config: KubeletConfiguration, flags: KubeletFlags): ConfigurationSummary {
  const summary: ConfigurationSummary = {
    mode: flags.standalone ? 'standalone' : 'api-server',
    rootDir: flags.rootDir,
    containerRuntimeEndpoint: config.containerRuntimeEndpoint,
    staticPodPath: config.staticPodPath,
    staticPodURL: config.staticPodURL,
    server: config.enableServer ? `${config.address}:${config.port}` : 'disabled',
    readOnlyPort: config.readOnlyPort,
    healthz: config.healthzPort === 0 ? 'disabled' : `${config.healthzBindAddress}:${config.healthzPort}`,
    cgroupDriver: config.cgroupDriver,
    cgroupsPerQOS: config.cgroupsPerQOS,
    cgroupRoot: config.cgroupRoot ?? '',
    maxPods: config.maxPods,
    syncFrequency: config.syncFrequency,
    evictionHard: joinMap(config.evictionHard, '<'),
    featureGates: joinMap(config.featureGates, '='),
  };
  if (flags.hostnameOverride !== undefined) summary.nodeName = flags.hostnameOverride;
  if (flags.config !== undefined) summary.configFile = flags.config;
  return summary;
}
