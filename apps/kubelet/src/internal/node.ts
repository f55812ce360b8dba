import os from 'node:os';

/** Upstream nodeutil.GetHostname: the override or the machine's hostname, lower-cased and trimmed. */
export function resolveNodeName(hostnameOverride: string | undefined): string {
  const name = (hostnameOverride !== undefined && hostnameOverride.trim() !== '' ? hostnameOverride : os.hostname()).trim().toLowerCase();
  if (name === '') throw new Error('empty node name: set --hostname-override');
  return name;
}

/**
 * The node's IPs, primary first: `--node-ip` (comma-separated, dual-stack) or the first
 * non-internal IPv4 address, then IPv6, as upstream picks a default when none is given.
 */
export function resolveNodeIPs(nodeIP: string | undefined, interfaces = os.networkInterfaces()): string[] {
  if (nodeIP !== undefined && nodeIP.trim() !== '' && nodeIP !== '0.0.0.0' && nodeIP !== '::') {
    return nodeIP
      .split(',')
      .map((ip) => ip.trim())
      .filter((ip) => ip !== '');
  }
  const addresses = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((a) => !a.internal);
  const v4 = addresses.find((a) => a.family === 'IPv4');
  const v6 = addresses.find((a) => a.family === 'IPv6' && !a.address.startsWith('fe80'));
  const out = [v4?.address, v6?.address].filter((a): a is string => a !== undefined);
  return out.length > 0 ? out : ['127.0.0.1'];
}
