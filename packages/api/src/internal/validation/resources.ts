import { parseQuantityExact } from '../../quantity.js';
import type { ResourceRequirements } from '../../schemas.js';
import { qualifiedName } from '../names.js';
import type { Rational } from '../rational.js';
import { cmp, ZERO } from '../rational.js';
import type { Issues } from './issues.js';
import { show } from './issues.js';

function quantityOrIssue(path: string, value: string | number, issues: Issues): Rational | undefined {
  try {
    return parseQuantityExact(value);
  } catch (err) {
    issues.invalid(path, value, err instanceof Error ? err.message : String(err));
    return undefined;
  }
}

export function validateResourceQuantity(path: string, value: string | number, issues: Issues): Rational | undefined {
  const q = quantityOrIssue(path, value, issues);
  if (q !== undefined && cmp(q, ZERO) < 0) {
    issues.invalid(path, value, 'must be greater than or equal to 0');
    return undefined;
  }
  return q;
}

export function validateResources(resources: ResourceRequirements, path: string, issues: Issues): void {
  const limits = new Map<string, Rational>();
  for (const [name, value] of Object.entries(resources.limits ?? {})) {
    issues.check(`${path}.limits[${name}]`, name, qualifiedName(name));
    const q = validateResourceQuantity(`${path}.limits[${name}]`, value, issues);
    if (q !== undefined) limits.set(name, q);
  }
  for (const [name, value] of Object.entries(resources.requests ?? {})) {
    const p = `${path}.requests[${name}]`;
    issues.check(p, name, qualifiedName(name));
    const q = validateResourceQuantity(p, value, issues);
    const limit = limits.get(name);
    if (q === undefined || limit === undefined) continue;
    if (cmp(q, limit) > 0) issues.invalid(p, value, `must be less than or equal to ${name} limit of ${show(resources.limits?.[name])}`);
    // Hugepages and extended resources cannot be overcommitted: request must equal limit.
    else if (!isOvercommitable(name) && cmp(q, limit) !== 0) {
      issues.invalid(p, value, `must be equal to ${name} limit of ${show(resources.limits?.[name])}`);
    }
  }
}

function isOvercommitable(name: string): boolean {
  if (name.startsWith('hugepages-')) return false;
  // Extended resources: a domain-prefixed name outside kubernetes.io.
  const slash = name.indexOf('/');
  if (slash < 0) return true;
  const domain = name.slice(0, slash);
  return domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io');
}
