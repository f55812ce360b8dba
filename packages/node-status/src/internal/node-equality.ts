// Upstream nodeStatusHasChanged with apiequality.Semantic: heartbeat times ignored, quantities
// compared by value, an empty list or map equal to an absent one.
import { parseQuantity } from '@kubelet-ts/api';
import type { NodeCondition, NodeStatus, ResourceList } from '@kubelet-ts/api';

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** Deep equality of JSON-like values where empty and absent are the same (Go's semantic equality). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => semanticEqual(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    return [...keys].every((k) => semanticEqual(x[k], y[k]));
  }
  return a === b;
}

function quantityValue(q: string | number): string {
  try {
    return String(parseQuantity(q));
  } catch {
    return String(q);
  }
}

/** A resource list with every quantity as its value in base units: "1000m" and "1" compare equal. */
function normalizeResources(list: ResourceList | undefined): Record<string, string> | undefined {
  if (list === undefined) return undefined;
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, quantityValue(v)]));
}

const withoutHeartbeat = (c: NodeCondition): NodeCondition => {
  const { lastHeartbeatTime: _ignored, ...rest } = c;
  return rest as NodeCondition;
};

function conditionsChanged(before: readonly NodeCondition[] = [], after: readonly NodeCondition[] = []): boolean {
  if (before.length !== after.length) return true;
  const byType = (x: NodeCondition, y: NodeCondition): number => (x.type < y.type ? -1 : x.type > y.type ? 1 : 0);
  const a = [...before].sort(byType);
  const b = [...after].sort(byType);
  return a.some((c, i) => !semanticEqual(withoutHeartbeat(c), withoutHeartbeat(b[i] as NodeCondition)));
}

/** Upstream nodeStatusHasChanged: any change of the status but the conditions' lastHeartbeatTime. */
export function nodeStatusHasChanged(before: NodeStatus | undefined, after: NodeStatus | undefined): boolean {
  if (before === undefined && after === undefined) return false;
  if (before === undefined || after === undefined) return true;
  if (conditionsChanged(before.conditions, after.conditions)) return true;
  const rest = (s: NodeStatus): Record<string, unknown> => ({
    ...s,
    conditions: undefined,
    capacity: normalizeResources(s.capacity),
    allocatable: normalizeResources(s.allocatable),
  });
  return !semanticEqual(rest(before), rest(after));
}
