// Upstream kubelet_pods.go managedHostsFileContent / ensureHostsFile.
import { access, writeFile } from 'node:fs/promises';
import type { HostAlias } from '@kubelet-ts/api';

const MANAGED_HOSTS_HEADER = '# Kubernetes-managed hosts file.\n';
const MANAGED_HOSTS_HEADER_HOST_NETWORK = '# Kubernetes-managed hosts file (host network).\n';

function hostAliasEntries(hostAliases: readonly HostAlias[]): string {
  if (hostAliases.length === 0) return '';
  let out = '\n# Entries added by HostAliases.\n';
  for (const alias of hostAliases) out += `${alias.ip}\t${(alias.hostnames ?? []).join('\t')}\n`;
  return out;
}

/** The /etc/hosts of a host-network pod (upstream nodeHostsFileContent): the node's own, then hostAliases. */
export function nodeHostsFileContent(nodeHosts: string, hostAliases: readonly HostAlias[] = []): string {
  return MANAGED_HOSTS_HEADER_HOST_NETWORK + nodeHosts + hostAliasEntries(hostAliases);
}

/** The kubelet-managed /etc/hosts of a pod: localhost lines, the pod IPs with the hostname, then hostAliases. */
export function managedHostsFileContent(
  podIPs: readonly string[],
  hostname: string,
  hostDomainName: string,
  hostAliases: readonly HostAlias[] = [],
): string {
  let out = MANAGED_HOSTS_HEADER;
  out += '127.0.0.1\tlocalhost\n';
  out += '::1\tlocalhost ip6-localhost ip6-loopback\n';
  out += 'fe00::0\tip6-localnet\n';
  out += 'fe00::0\tip6-mcastprefix\n';
  out += 'fe00::1\tip6-allnodes\n';
  out += 'fe00::2\tip6-allrouters\n';
  for (const ip of podIPs) {
    out += hostDomainName !== '' ? `${ip}\t${hostname}.${hostDomainName}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  }
  return out + hostAliasEntries(hostAliases);
}

/** Writes the hosts file unless it exists already (upstream never rewrites it for a pod). */
export async function ensureHostsFile(path: string, content: string): Promise<boolean> {
  try {
    await access(path);
    return false;
  } catch {
    await writeFile(path, content, { mode: 0o644 });
    return true;
  }
}
