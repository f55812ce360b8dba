import { release } from 'node:os';
import type { Pod } from '@kubelet-ts/api';
import { Reason } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { noopLogger } from '@kubelet-ts/common';
import { SAFE_SYSCTLS, SYSCTL_MAX_LENGTH, SYSCTL_PATTERN_FORMAT } from './constants.js';
import { AdmissionError } from './errors.js';
import { neverThrows } from './internal/guard.js';
import { kernelAtLeast, parseKernelVersion } from './internal/kernel-version.js';
import type { PodAdmitHandler, SysctlAdmitHandlerOptions } from './types.js';

/** The kernel namespace a sysctl lives in (component-helpers node/util/sysctl). */
type SysctlNamespace = 'ipc' | 'net';

const NAMESPACED: Readonly<Record<string, SysctlNamespace>> = { 'kernel.sem': 'ipc' };
const NAMESPACED_PREFIXES: readonly (readonly [string, SysctlNamespace])[] = [
  ['kernel.shm', 'ipc'],
  ['kernel.msg', 'ipc'],
  ['fs.mqueue.', 'ipc'],
  ['net.', 'net'],
];

const SYSCTL_PATTERN = new RegExp(`^${SYSCTL_PATTERN_FORMAT}$`);

/** Upstream NamespacedBy: the namespace of a sysctl, or undefined when it is not known to be namespaced. */
function namespacedBy(name: string): SysctlNamespace | undefined {
  return NAMESPACED[name] ?? NAMESPACED_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/**
 * Upstream ConvertSysctlVariableToDotsSeparator: a name whose first separator is '/' uses '/' between
 * segments, so '.' and '/' swap ("net/ipv4/conf/eno2.100/rp_filter" → "net.ipv4.conf.eno2/100.rp_filter").
 */
export function sysctlToDots(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

/**
 * Upstream SafeSysctlAllowlist (v1.34): the safe sysctls this kernel namespaces. A sysctl that a
 * newer kernel namespaced is left out below that version, and when the version is unknown.
 */
export function safeSysctls(kernelVersion: string | undefined, logger: Logger = noopLogger): string[] {
  const version = kernelVersion === undefined ? undefined : parseKernelVersion(kernelVersion);
  if (version === undefined)
    logger.error('Failed to get kernel version, unable to determine which sysctls are available', { kernelVersion });
  return SAFE_SYSCTLS.flatMap(({ name, minKernelVersion }) => {
    if (minKernelVersion === undefined) return [name];
    if (version !== undefined && kernelAtLeast(version, parseKernelVersion(minKernelVersion) ?? [])) return [name];
    logger.info('Kernel version is too old, dropping the sysctl from safe sysctl list', { kernelVersion, sysctl: name });
    return [];
  });
}

interface Allowlist {
  sysctls: Map<string, SysctlNamespace>;
  prefixes: Map<string, SysctlNamespace>;
}

/** Upstream NewAllowlist, collecting every bad entry's error (upstream stops at the first). */
function buildAllowlist(patterns: readonly string[]): { allowlist: Allowlist; errors: string[] } {
  const allowlist: Allowlist = { sysctls: new Map(), prefixes: new Map() };
  const errors: string[] = [];
  for (const pattern of patterns) {
    if (pattern.length > SYSCTL_MAX_LENGTH || !SYSCTL_PATTERN.test(pattern)) {
      errors.push(
        `sysctl ${JSON.stringify(pattern)} must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_PATTERN_FORMAT}`,
      );
      continue;
    }
    const s = sysctlToDots(pattern);
    if (s.endsWith('*')) {
      const prefix = s.slice(0, -1);
      const ns = namespacedBy(prefix);
      if (ns === undefined) errors.push(`the sysctls ${JSON.stringify(s)} are not known to be namespaced`);
      else allowlist.prefixes.set(prefix, ns);
    } else {
      const ns = namespacedBy(s);
      if (ns === undefined) errors.push(`the sysctl ${JSON.stringify(s)} are not known to be namespaced`);
      else allowlist.sysctls.set(s, ns);
    }
  }
  return { allowlist, errors };
}

/**
 * Checks the kubelet's `allowedUnsafeSysctls` as upstream NewAllowlist does: each entry a sysctl
 * name or a pattern ending in `*` (at most 253 characters, '.' or '/' separated), and known to be
 * namespaced (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*). One message per bad entry,
 * naming it; empty when the list is good.
 */
export function validateAllowedUnsafeSysctls(allowedUnsafeSysctls: readonly string[]): string[] {
  return buildAllowlist(allowedUnsafeSysctls).errors;
}

/** Upstream patternAllowlist.validateSysctl: the reason a sysctl is forbidden, or undefined. */
function forbidden(allowlist: Allowlist, name: string, hostNetwork: boolean, hostIPC: boolean): string | undefined {
  const sysctl = sysctlToDots(name);
  const ns = allowlist.sysctls.get(sysctl) ?? [...allowlist.prefixes].find(([prefix]) => sysctl.startsWith(prefix))?.[1];
  if (ns === undefined) return `${JSON.stringify(sysctl)} not allowlisted`;
  if ((ns === 'ipc' && hostIPC) || (ns === 'net' && hostNetwork)) return `${JSON.stringify(sysctl)} not allowed with host ${ns} enabled`;
  return undefined;
}

/**
 * Upstream sysctl.NewAllowlist(SafeSysctlAllowlist() + allowedUnsafeSysctls) as a pod admit
 * handler: every `spec.securityContext.sysctls` name must be safe or allowed, and a pod sharing the
 * host's network (IPC) namespace may set no net.* (IPC) sysctl. Refusals: `SysctlForbidden`,
 * "forbidden sysctl: …". Throws AdmissionError `INVALID_SYSCTL_ALLOWLIST` for a bad allowlist
 * (upstream's kubelet does not start).
 */
export function createSysctlAdmitHandler(options: SysctlAdmitHandlerOptions = {}): PodAdmitHandler {
  const logger = options.logger ?? noopLogger;
  const kernelVersion = options.kernelVersion ?? release();
  const { allowlist, errors } = buildAllowlist([...safeSysctls(kernelVersion, logger), ...(options.allowedUnsafeSysctls ?? [])]);
  const [firstError] = errors;
  if (firstError !== undefined) throw new AdmissionError('INVALID_SYSCTL_ALLOWLIST', firstError);
  return neverThrows(logger, ({ pod }: { pod: Pod }) => {
    for (const { name } of pod.spec.securityContext?.sysctls ?? []) {
      const why = forbidden(allowlist, name, pod.spec.hostNetwork === true, pod.spec.hostIPC === true);
      if (why !== undefined) return { admit: false, reason: Reason.SysctlForbidden, message: `forbidden sysctl: ${why}` };
    }
    return { admit: true };
  });
}
