// Upstream component-helpers scheduling/corev1/nodeaffinity: GetRequiredNodeAffinity(pod).Match(node),
// the nodeSelector map and the required node affinity terms.
import type { Node, Pod } from '@kubelet-ts/api';
import { z } from 'zod';

const NodeSelectorRequirementSchema = z.looseObject({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});
type NodeSelectorRequirement = z.infer<typeof NodeSelectorRequirementSchema>;

const NodeSelectorTermSchema = z.looseObject({
  matchExpressions: z.array(NodeSelectorRequirementSchema).optional(),
  matchFields: z.array(NodeSelectorRequirementSchema).optional(),
});
type NodeSelectorTerm = z.infer<typeof NodeSelectorTermSchema>;

// spec.affinity is untyped in the shared Pod schema: this package reads only the node affinity part.
const AffinitySchema = z.looseObject({
  nodeAffinity: z
    .looseObject({
      requiredDuringSchedulingIgnoredDuringExecution: z
        .looseObject({ nodeSelectorTerms: z.array(NodeSelectorTermSchema).default([]) })
        .optional(),
    })
    .optional(),
});

/** The required node affinity of a pod, or a description of why `spec.affinity` is malformed. */
export type RequiredNodeAffinity = { ok: true; match: (node: Node) => boolean } | { ok: false; error: string };

const INT64 = /^[+-]?[0-9]+$/;

/** strconv.ParseInt(s, 10, 64). */
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const v = BigInt(s);
  return v >= -(2n ** 63n) && v < 2n ** 63n ? v : undefined;
}

type Matcher = (get: (key: string) => string | undefined) => boolean;

/**
 * labels.NewRequirement's rules on operator and values; a term with a requirement that breaks them
 * matches nothing (upstream LazyErrorNodeSelector keeps the parse error and skips the term).
 */
function labelRequirement(r: NodeSelectorRequirement): Matcher | undefined {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      if (values.length === 0) return undefined;
      return (get) => {
        const v = get(r.key);
        return v !== undefined && values.includes(v);
      };
    case 'NotIn':
      if (values.length === 0) return undefined;
      return (get) => {
        const v = get(r.key);
        return v === undefined || !values.includes(v);
      };
    case 'Exists':
      if (values.length !== 0) return undefined;
      return (get) => get(r.key) !== undefined;
    case 'DoesNotExist':
      if (values.length !== 0) return undefined;
      return (get) => get(r.key) === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = values.length === 1 ? parseInt64(values[0] ?? '') : undefined;
      if (bound === undefined) return undefined;
      return (get) => {
        const raw = get(r.key);
        const v = raw === undefined ? undefined : parseInt64(raw);
        if (v === undefined) return false;
        return r.operator === 'Gt' ? v > bound : v < bound;
      };
    }
    default:
      return undefined;
  }
}

/** Upstream nodeSelectorRequirementsAsFieldSelector: In / NotIn with exactly one value. */
function fieldRequirement(r: NodeSelectorRequirement): Matcher | undefined {
  const values = r.values ?? [];
  if ((r.operator !== 'In' && r.operator !== 'NotIn') || values.length !== 1) return undefined;
  const [value] = values;
  // A field the node does not have reads as "" (fields.Set.Get).
  return r.operator === 'In' ? (get) => (get(r.key) ?? '') === value : (get) => (get(r.key) ?? '') !== value;
}

function compileTerm(term: NodeSelectorTerm): ((node: Node) => boolean) | undefined {
  const labels: Matcher[] = [];
  const fields: Matcher[] = [];
  for (const r of term.matchExpressions ?? []) {
    const m = labelRequirement(r);
    if (m === undefined) return undefined;
    labels.push(m);
  }
  for (const r of term.matchFields ?? []) {
    const m = fieldRequirement(r);
    if (m === undefined) return undefined;
    fields.push(m);
  }
  return (node) => {
    const nodeLabels = node.metadata.labels ?? {};
    const getLabel = (key: string): string | undefined => (Object.hasOwn(nodeLabels, key) ? nodeLabels[key] : undefined);
    const getField = (key: string): string | undefined => (key === 'metadata.name' ? node.metadata.name : undefined);
    return labels.every((m) => m(getLabel)) && fields.every((m) => m(getField));
  };
}

/** Upstream GetRequiredNodeAffinity: the nodeSelector (every label equal) and the required terms (any one matching). */
export function requiredNodeAffinity(pod: Pod): RequiredNodeAffinity {
  const parsed = AffinitySchema.safeParse(pod.spec.affinity ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ['spec', 'affinity', ...(issue?.path ?? [])].map(String).join('.');
    return { ok: false, error: `${path}: ${issue?.message ?? 'invalid'}` };
  }
  const selector = Object.entries(pod.spec.nodeSelector ?? {});
  const required = parsed.data.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  // A term with neither expressions nor fields selects nothing and is dropped; so is a term that does not parse.
  const terms = required?.nodeSelectorTerms
    .filter((t) => (t.matchExpressions?.length ?? 0) + (t.matchFields?.length ?? 0) > 0)
    .map(compileTerm)
    .filter((t) => t !== undefined);
  return {
    ok: true,
    match: (node) => {
      const labels = node.metadata.labels ?? {};
      if (!selector.every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v)) return false;
      if (terms === undefined) return true;
      return terms.some((t) => t(node));
    },
  };
}
