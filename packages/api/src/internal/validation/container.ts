import type { Container, Volume } from '../../schemas.js';
import { dns1123Label } from '../names.js';
import { validateEnv } from './env.js';
import { validateHandler, validateProbe } from './handlers.js';
import type { Issues } from './issues.js';
import { validateMounts } from './mounts.js';
import { validatePorts } from './ports.js';
import { validateResources } from './resources.js';
import { validateSeccomp } from './security.js';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;

const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'] as const;

const PROC_MOUNTS = ['Default', 'Unmasked'] as const;

export interface ContainerContext {
  names: Set<string>;
  volumes: Map<string, Volume>;
  hostNetwork: boolean;
  grace: number | undefined;
  init: boolean;
  /** An ephemeral container: the fields it may not have are refused by validateEphemeralContainer instead. */
  ephemeral?: boolean;
}

export function validateContainer(c: Container, path: string, ctx: ContainerContext, issues: Issues): void {
  if (c.name === '') issues.required(`${path}.name`);
  else {
    issues.check(`${path}.name`, c.name, dns1123Label(c.name));
    if (ctx.names.has(c.name)) issues.duplicate(`${path}.name`, c.name);
    ctx.names.add(c.name);
  }
  if (c.image === '') issues.required(`${path}.image`);
  else if (c.image.trim() !== c.image) issues.invalid(`${path}.image`, c.image, 'must not have leading or trailing whitespace');
  issues.enumValue(`${path}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  issues.enumValue(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES);

  if (ctx.ephemeral === true) {
    // restartPolicy, ports, resources, probes and hooks: refused by the allow-list.
  } else if (ctx.init) {
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always')
      issues.notSupported(`${path}.restartPolicy`, c.restartPolicy, ['Always']);
  } else if (c.restartPolicy !== undefined) {
    issues.forbidden(`${path}.restartPolicy`, 'may not be set for non-init containers');
  }
  const sidecar = ctx.init && c.restartPolicy === 'Always';

  if (ctx.ephemeral !== true) validatePorts(c, path, ctx.hostNetwork, issues);
  (c.env ?? []).forEach((env, i) => validateEnv(env, `${path}.env[${i}]`, issues));
  (c.envFrom ?? []).forEach((from, i) => {
    const p = `${path}.envFrom[${i}]`;
    const count = (from.configMapRef !== undefined ? 1 : 0) + (from.secretRef !== undefined ? 1 : 0);
    if (count === 0) issues.invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`');
    if (count > 1) issues.invalid(p, '', 'may not have more than one field specified at a time');
  });
  if (c.resources !== undefined && ctx.ephemeral !== true) validateResources(c.resources, `${path}.resources`, issues);
  validateMounts(c, path, ctx.volumes, issues);

  if (ctx.ephemeral === true) {
    // no probes or hooks to validate (refused)
  } else if (ctx.init && !sidecar) {
    // Run-to-completion init containers take no probes or hooks; sidecars take all of them.
    for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      if (c[field] !== undefined) issues.forbidden(`${path}.${field}`, 'may not be set for init containers without restartPolicy=Always');
    }
  } else {
    if (c.livenessProbe !== undefined) validateProbe(c.livenessProbe, `${path}.livenessProbe`, c, 'liveness', issues);
    if (c.readinessProbe !== undefined) validateProbe(c.readinessProbe, `${path}.readinessProbe`, c, 'readiness', issues);
    if (c.startupProbe !== undefined) validateProbe(c.startupProbe, `${path}.startupProbe`, c, 'startup', issues);
    if (c.lifecycle?.postStart !== undefined) validateHandler(c.lifecycle.postStart, `${path}.lifecycle.postStart`, ctx.grace, issues);
    if (c.lifecycle?.preStop !== undefined) validateHandler(c.lifecycle.preStop, `${path}.lifecycle.preStop`, ctx.grace, issues);
  }

  const sc = c.securityContext;
  if (sc !== undefined) {
    const scPath = `${path}.securityContext`;
    issues.nonNegative(`${scPath}.runAsUser`, sc.runAsUser);
    issues.nonNegative(`${scPath}.runAsGroup`, sc.runAsGroup);
    issues.enumValue(`${scPath}.procMount`, sc.procMount, PROC_MOUNTS);
    if (sc.seccompProfile !== undefined) validateSeccomp(sc.seccompProfile, `${scPath}.seccompProfile`, issues);
    if (sc.allowPrivilegeEscalation === false && sc.privileged === true) {
      issues.invalid(scPath, '', 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true');
    }
    if (sc.allowPrivilegeEscalation === false && (sc.capabilities?.add ?? []).includes('CAP_SYS_ADMIN')) {
      issues.invalid(scPath, '', 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN');
    }
  }
}
