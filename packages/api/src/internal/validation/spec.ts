import type { PodSpec } from '../../schemas.js';
import { dns1123Label, dns1123Subdomain, qualifiedName } from '../names.js';
import { validateContainer } from './container.js';
import { validateEphemeralContainer } from './ephemeral.js';
import type { Issues } from './issues.js';
import { checkHostPortConflicts } from './ports.js';
import { validateResourceQuantity } from './resources.js';
import { validateSeccomp } from './security.js';
import { validateVolumes } from './volumes.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;

const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;

const TOLERATION_OPERATORS = ['Exists', 'Equal'] as const;

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

const OS_NAMES = ['linux', 'windows'] as const;

const MAX_INT32 = 2_147_483_647;

export function validateSpec(spec: PodSpec, issues: Issues): void {
  const volumes = validateVolumes(spec.volumes ?? [], issues);

  if (spec.containers.length === 0) issues.required('spec.containers');
  const names = new Set<string>();
  const hostNetwork = spec.hostNetwork === true;
  const grace = spec.terminationGracePeriodSeconds;
  // Upstream validates the regular containers first, then the init containers against them.
  spec.containers.forEach((c, i) => {
    validateContainer(c, `spec.containers[${i}]`, { names, volumes, hostNetwork, grace, init: false }, issues);
  });
  checkHostPortConflicts(spec.containers, issues);
  (spec.initContainers ?? []).forEach((c, i) => {
    const path = `spec.initContainers[${i}]`;
    validateContainer(c, path, { names, volumes, hostNetwork, grace, init: true }, issues);
  });
  // Targets are the regular and init containers only, never another ephemeral one.
  const targets = new Set(names);
  (spec.ephemeralContainers ?? []).forEach((c, i) => {
    const path = `spec.ephemeralContainers[${i}]`;
    validateEphemeralContainer(c, path, { names, volumes, hostNetwork, grace, init: false }, targets, issues);
  });

  issues.enumValue('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES);
  issues.enumValue('spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES);
  if (spec.dnsPolicy === 'None' && (spec.dnsConfig?.nameservers ?? []).length === 0) {
    issues.required('spec.dnsConfig.nameservers', 'must provide at least one DNS nameserver when DNSPolicy is None');
  }
  if ((spec.dnsConfig?.nameservers ?? []).length > 3) {
    issues.invalid('spec.dnsConfig.nameservers', spec.dnsConfig?.nameservers, 'must not have more than 3 nameservers');
  }
  issues.nonNegative('spec.terminationGracePeriodSeconds', grace);
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (deadline <= 0 || deadline > MAX_INT32)) {
    issues.invalid('spec.activeDeadlineSeconds', deadline, `must be between 1 and ${MAX_INT32}, inclusive`);
  }
  if (spec.hostname !== undefined && spec.hostname !== '') issues.check('spec.hostname', spec.hostname, dns1123Label(spec.hostname));
  if (spec.subdomain !== undefined && spec.subdomain !== '') {
    issues.check('spec.subdomain', spec.subdomain, dns1123Label(spec.subdomain));
  }
  if (spec.nodeName !== undefined && spec.nodeName !== '') {
    issues.check('spec.nodeName', spec.nodeName, dns1123Subdomain(spec.nodeName));
  }
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    issues.invalid('spec.shareProcessNamespace', true, 'ShareProcessNamespace and HostPID cannot both be enabled');
  }
  (spec.tolerations ?? []).forEach((t, i) => {
    const path = `spec.tolerations[${i}]`;
    if (t.key !== undefined && t.key !== '') issues.check(`${path}.key`, t.key, qualifiedName(t.key));
    issues.enumValue(`${path}.operator`, t.operator || undefined, TOLERATION_OPERATORS);
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') {
      issues.invalid(
        `${path}.operator`,
        t.operator ?? '',
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    }
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') {
      issues.invalid(`${path}.operator`, t.operator, "value must be empty when `operator` is 'Exists'");
    }
    issues.enumValue(`${path}.effect`, t.effect || undefined, TAINT_EFFECTS);
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      issues.invalid(`${path}.effect`, t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
  });
  const seccomp = spec.securityContext?.seccompProfile;
  if (seccomp !== undefined) validateSeccomp(seccomp, 'spec.securityContext.seccompProfile', issues);
  if (spec.os !== undefined) issues.enumValue('spec.os.name', spec.os.name, OS_NAMES);
  for (const [name, value] of Object.entries(spec.overhead ?? {})) {
    validateResourceQuantity(`spec.overhead[${name}]`, value, issues);
  }
}
