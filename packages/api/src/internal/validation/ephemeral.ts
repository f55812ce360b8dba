// Upstream validateEphemeralContainers (pkg/apis/core/validation): a container's checks, then the
// allow-list of fields an ephemeral container may set, its target and no subPath mounts.
import type { EphemeralContainer } from '../../schemas.js';
import type { ContainerContext } from './container.js';
import { validateContainer } from './container.js';
import type { Issues } from './issues.js';

/**
 * Fields of EphemeralContainerCommon outside upstream's allowedEphemeralContainerFields: ephemeral
 * containers must not provide pod services (ports, probes, hooks) or take resources.
 */
const DISALLOWED_FIELDS = [
  'ports',
  'resources',
  'resizePolicy',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'restartPolicy',
  'restartPolicyRules',
] as const;

const FORBIDDEN = 'cannot be set for an Ephemeral Container';

/** Go's zero value test of validateFieldAllowList, for decoded JSON: absent, null, '', 0, false, or an object/list of zeros. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(isZero);
  return false;
}

export function validateEphemeralContainer(
  c: EphemeralContainer,
  path: string,
  ctx: ContainerContext,
  /** Names of the pod's regular and init containers: the possible targets. */
  targets: ReadonlySet<string>,
  issues: Issues,
): void {
  validateContainer(c, path, { ...ctx, init: false, ephemeral: true }, issues);
  const target = c.targetContainerName;
  if (target !== undefined && target !== '' && !targets.has(target)) issues.notFound(`${path}.targetContainerName`, target);
  const fields = c as Record<string, unknown>;
  for (const field of DISALLOWED_FIELDS) {
    if (!isZero(fields[field])) issues.forbidden(`${path}.${field}`, FORBIDDEN);
  }
  (c.volumeMounts ?? []).forEach((m, i) => {
    // Bind mounts of subpaths outlive the container until the pod exits.
    if (m.subPath !== undefined && m.subPath !== '') issues.forbidden(`${path}.volumeMounts[${i}].subPath`, FORBIDDEN);
    if (m.subPathExpr !== undefined && m.subPathExpr !== '') issues.forbidden(`${path}.volumeMounts[${i}].subPathExpr`, FORBIDDEN);
  });
}
