// Upstream pkg/kubelet/network/dns: pod DNS from the node's resolv.conf, cluster DNS and the pod's dnsConfig.
import { isIPv6 } from 'node:net';
import type { Pod } from '@kubelet-ts/api';

export interface DnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

/** Upstream limits: 3 nameservers, 32 search domains, 2048 characters of search list. */
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;

/** Upstream parseResolvConf: nameserver lines, the last search line (trailing dots trimmed, "." dropped), options. */
export function parseResolvConf(text: string): DnsConfig {
  const servers: string[] = [];
  let searches: string[] = [];
  const options: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const fields = line.split(/\s+/).filter((f) => f !== '');
    const [key, ...rest] = fields;
    if (key === 'nameserver' && rest[0] !== undefined) servers.push(rest[0]);
    else if (key === 'search') searches = rest.filter((s) => s !== '.').map((s) => s.replace(/\.$/, ''));
    else if (key === 'options') options.push(...rest);
  }
  return { servers, searches, options };
}

type PodDnsType = 'cluster' | 'host' | 'none';

/** Upstream getPodDNSType; ClusterFirst on host network is host DNS. Missing cluster DNS falls back to host. */
export function podDnsType(pod: Pod, clusterDNS: readonly string[]): { type: PodDnsType; fellBack: boolean } {
  const policy = pod.spec.dnsPolicy ?? 'ClusterFirst';
  let type: PodDnsType;
  switch (policy) {
    case 'None':
      return { type: 'none', fellBack: false };
    case 'ClusterFirstWithHostNet':
      type = 'cluster';
      break;
    case 'ClusterFirst':
      type = pod.spec.hostNetwork === true ? 'host' : 'cluster';
      break;
    default:
      type = 'host';
  }
  if (type === 'cluster' && clusterDNS.length === 0) return { type: 'host', fellBack: true };
  return { type, fellBack: false };
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}

/** Upstream mergeDNSOptions: pod options replace node options with the same name. */
function mergeOptions(existing: string[], extra: Array<{ name?: string; value?: string }>): string[] {
  const byName = new Map<string, string>();
  for (const opt of existing) byName.set(opt.split(':', 1)[0] ?? opt, opt);
  for (const opt of extra) {
    if (opt.name === undefined) continue;
    byName.set(opt.name, opt.value !== undefined ? `${opt.name}:${opt.value}` : opt.name);
  }
  return [...byName.values()];
}

/** Upstream formDNSSearchFitsLimits. */
function fitSearches(searches: string[]): string[] {
  let out = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  while (out.join(' ').length > MAX_DNS_SEARCH_LIST_CHARS) out = out.slice(0, -1);
  return out;
}

export interface PodDnsInput {
  pod: Pod;
  /** Parsed node resolv.conf, or undefined when --resolv-conf is "". */
  host: DnsConfig | undefined;
  clusterDNS: readonly string[];
  clusterDomain: string;
  nodeIPs: readonly string[];
}

/** Upstream Configurer.GetPodDNS. */
export function getPodDNS(input: PodDnsInput): DnsConfig {
  const { pod } = input;
  const { type } = podDnsType(pod, input.clusterDNS);
  let config: DnsConfig = { servers: [], searches: [], options: [] };
  if (type === 'host') {
    if (input.host === undefined) {
      // resolv-conf "": point at the local machine, and disable search paths.
      config.servers = input.nodeIPs.map((ip) => (isIPv6(ip) ? '::1' : '127.0.0.1'));
      if (config.servers.length === 0) config.servers = ['127.0.0.1'];
      config.searches = ['.'];
    } else {
      config = { servers: [...input.host.servers], searches: [...input.host.searches], options: [...input.host.options] };
    }
  } else if (type === 'cluster') {
    const ns = pod.metadata.namespace;
    const domain = input.clusterDomain;
    const own = domain !== '' ? [`${ns}.svc.${domain}`, `svc.${domain}`, domain] : [];
    config = { servers: [...input.clusterDNS], searches: dedupe([...own, ...(input.host?.searches ?? [])]), options: ['ndots:5'] };
  }
  const podConfig = pod.spec.dnsConfig;
  if (podConfig !== undefined) {
    config.servers = dedupe([...config.servers, ...(podConfig.nameservers ?? [])]);
    config.searches = dedupe([...config.searches, ...(podConfig.searches ?? [])]);
    config.options = mergeOptions(config.options, podConfig.options ?? []);
  }
  config.servers = config.servers.slice(0, MAX_DNS_NAMESERVERS);
  config.searches = fitSearches(config.searches);
  return config;
}
