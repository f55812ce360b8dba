import type { Pod } from '@kubelet-ts/api';
import { isMirrorPod, parsePod, PodSourceName } from '@kubelet-ts/api';
import type { SourceError } from '../types.js';

/** What one object of the informer turned out to be. */
export type ApiPodVerdict = { kind: 'pod'; pod: Pod } | { kind: 'mirror'; pod: Pod } | { kind: 'refused'; errors: SourceError[] };

/** The pods of one snapshot, split, and the problems not reported before. */
export interface ApiPodsSnapshot {
  pods: Pod[];
  mirrorPods: Pod[];
  /** Problems of objects (or versions of objects) seen for the first time. */
  newErrors: SourceError[];
}

interface CachedVerdict {
  resourceVersion: string | undefined;
  verdict: ApiPodVerdict;
}

/** `<namespace>/<name>` of whatever the object claims to be, for error messages. */
function locator(raw: unknown): string {
  const meta = typeof raw === 'object' && raw !== null ? (raw as { metadata?: unknown }).metadata : undefined;
  const m = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  const part = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '?');
  return `pods/${part(m.namespace)}/${part(m.name)}`;
}

function metaField(raw: unknown, field: 'uid' | 'resourceVersion'): string | undefined {
  const meta = typeof raw === 'object' && raw !== null ? (raw as { metadata?: unknown }).metadata : undefined;
  const value = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Judges one API object: a valid pod of this node (to run), a mirror pod of this node (kept apart),
 * or refused (invalid, or bound to another node). The API server defaulted and validated it
 * already; we validate again because nothing from outside is trusted (upstream trusts the API).
 */
export function judgeApiPod(raw: unknown, nodeName: string): ApiPodVerdict {
  const file = locator(raw);
  const refuse = (issues: Array<{ path: string; reason: string }>): ApiPodVerdict => ({
    kind: 'refused',
    errors: issues.map((i) => ({ source: PodSourceName.Api, file, path: i.path, reason: i.reason })),
  });
  // No defaults: the API server's defaulting is authoritative for API pods.
  const parsed = parsePod(raw, file, { requireTypeMeta: false, applyDefaults: false });
  if (!parsed.ok) return refuse(parsed.errors);
  const pod = parsed.pod;
  if (pod.metadata.uid === '') return refuse([{ path: 'metadata.uid', reason: 'Required value: an API pod has a UID' }]);
  if (pod.spec.nodeName !== nodeName) {
    return refuse([
      {
        path: 'spec.nodeName',
        reason: `Forbidden: pod is bound to node ${JSON.stringify(pod.spec.nodeName ?? '')}, not to this node ${JSON.stringify(nodeName)}`,
      },
    ]);
  }
  return { kind: isMirrorPod(pod) ? 'mirror' : 'pod', pod };
}

/**
 * Upstream's UndeltaStore side of the API source: turns the informer's whole list into the pods to
 * run and the mirror pods, judging each object version once (by UID and resourceVersion), so a
 * watch event costs one validation, not one per pod on the node.
 */
export class ApiPodJudge {
  readonly #nodeName: string;
  #cache = new Map<string, CachedVerdict>();

  constructor(nodeName: string) {
    this.#nodeName = nodeName;
  }

  snapshot(objects: readonly unknown[]): ApiPodsSnapshot {
    const next = new Map<string, CachedVerdict>();
    const out: ApiPodsSnapshot = { pods: [], mirrorPods: [], newErrors: [] };
    for (const raw of objects) {
      const uid = metaField(raw, 'uid');
      const resourceVersion = metaField(raw, 'resourceVersion');
      const cached = uid === undefined ? undefined : this.#cache.get(uid);
      let verdict: ApiPodVerdict;
      if (cached !== undefined && resourceVersion !== undefined && cached.resourceVersion === resourceVersion) {
        verdict = cached.verdict;
      } else {
        verdict = judgeApiPod(raw, this.#nodeName);
        if (verdict.kind === 'refused') out.newErrors.push(...verdict.errors);
      }
      if (uid !== undefined) next.set(uid, { resourceVersion, verdict });
      if (verdict.kind === 'pod') out.pods.push(verdict.pod);
      else if (verdict.kind === 'mirror') out.mirrorPods.push(verdict.pod);
    }
    this.#cache = next;
    return out;
  }
}
