import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import type { ConfigIssue } from './errors.js';
import type { KubeletFlags } from './flags.js';

// k8s.io/kubelet/pkg/apis: labels the kubelet may set on its own node in the kubernetes.io / k8s.io namespaces.
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is not a qualified name (`prefix/name`), or undefined (apimachinery IsQualifiedName). */
function qualifiedNameError(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return 'prefix must be a DNS subdomain';
  if (name.length === 0 || name.length > 63 || !NAME.test(name))
    return 'name must be 1-63 alphanumeric characters, "-", "_" or ".", starting and ending with an alphanumeric';
  return undefined;
}

function isKubernetesNamespace(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const ns = key.slice(0, slash);
  return ns === 'kubernetes.io' || ns.endsWith('.kubernetes.io') || ns === 'k8s.io' || ns.endsWith('.k8s.io');
}

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = key.slice(0, key.indexOf('/'));
  return KUBELET_LABEL_NAMESPACES.some((allowed) => ns === allowed || ns.endsWith(`.${allowed}`));
}

/** Upstream's ValidateKubeletFlags (node labels) plus the --node-ip syntax check. */
export function validateKubeletFlags(flags: KubeletFlags): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(flags.nodeLabels)) {
    const keyError = qualifiedNameError(key);
    if (keyError !== undefined)
      issues.push({ source: 'flag --node-labels', path: '', reason: `invalid label key ${JSON.stringify(key)}: ${keyError}` });
    else if (isKubernetesNamespace(key) && !isKubeletLabel(key)) {
      issues.push({
        source: 'flag --node-labels',
        path: '',
        reason: `unknown 'kubernetes.io' or 'k8s.io' label ${JSON.stringify(key)}: labels in these namespaces must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) or be in the allowed set`,
      });
    }
    if (value !== '' && (value.length > 63 || !NAME.test(value))) {
      issues.push({
        source: 'flag --node-labels',
        path: '',
        reason: `invalid label value ${JSON.stringify(value)} for ${JSON.stringify(key)}`,
      });
    }
  }
  if (flags.nodeIP !== undefined && flags.nodeIP !== '') {
    const ips = flags.nodeIP.split(',').map((ip) => ip.trim());
    for (const ip of ips) {
      if (isIP(ip) === 0) issues.push({ source: 'flag --node-ip', path: '', reason: `${JSON.stringify(ip)} is not a valid IP address` });
    }
    if (ips.length > 2 || (ips.length === 2 && isIP(ips[0] as string) === isIP(ips[1] as string))) {
      issues.push({
        source: 'flag --node-ip',
        path: '',
        reason: 'at most two addresses, one IPv4 and one IPv6 (dual-stack), may be given',
      });
    }
  }
  if (flags.maxParallelStarts !== undefined && flags.maxParallelStarts < 0) {
    issues.push({
      source: 'flag --max-parallel-starts',
      path: '',
      reason: `must be 0 (unlimited) or more, got ${String(flags.maxParallelStarts)}`,
    });
  }
  return issues;
}

/**
 * The default of --max-parallel-starts: twice the CPU count. On a 2-core node, the CRI calls for 110 pods
 * made directly ran in 55 s four pods at a time against 69 s all at once (bench/density baseline): past a
 * few, concurrent sandbox creations only compete for the CPU the runtime, its shims and CNI need.
 */
export function defaultMaxParallelStarts(cpus: number = availableParallelism()): number {
  return Math.max(2, 2 * cpus);
}

/** --max-parallel-starts as the runtime manager takes it: a positive limit, or undefined for unlimited. */
export function effectiveMaxParallelStarts(flags: Pick<KubeletFlags, 'maxParallelStarts'>, cpus?: number): number | undefined {
  const value = flags.maxParallelStarts ?? defaultMaxParallelStarts(cpus);
  return value > 0 ? value : undefined;
}
