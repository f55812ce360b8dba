import { Issues } from './internal/validation/issues.js';
import { validateMeta } from './internal/validation/meta.js';
import { validateSpec } from './internal/validation/spec.js';
import type { Pod } from './schemas.js';
import type { ValidationIssue } from './validation-issue.js';

export type { ValidationIssue };

/**
 * The node-relevant part of upstream ValidatePod (pkg/apis/core/validation). Expects a pod that
 * has been through {@link applyPodDefaults}, as upstream validates after defaulting. Returns every
 * issue found (empty when the pod is valid).
 */
export function validatePod(pod: Pod): ValidationIssue[] {
  const issues = new Issues();
  validateMeta(pod.metadata, issues);
  validateSpec(pod.spec, issues);
  return issues.list;
}
