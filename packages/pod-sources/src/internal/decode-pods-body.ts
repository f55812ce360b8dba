import type { Pod } from '@kubelet-ts/api';
import { podFullName } from '@kubelet-ts/api';
import { decodeStaticPod } from '../static-pod.js';
import type { SourceError, StaticPodObjectReference } from '../types.js';
import { parseManifest } from './manifest.js';

/** Where a body came from, and what its pods may refer to. */
export interface PodsBodyOrigin {
  url: string;
  nodeName: string;
  allowedObjectReferences: readonly StaticPodObjectReference[];
}

export type DecodePodsBodyResult = { ok: true; pods: Pod[] } | { ok: false; errors: SourceError[] };

/** A source error of the URL. */
export function urlError(url: string, reason: string, path = ''): SourceError[] {
  return [{ source: 'http', file: url, path, reason }];
}

/** Upstream tryDecodePodList: every item must be a valid pod with a name of its own, or the whole list is rejected. */
function decodePodList(value: unknown, o: PodsBodyOrigin): DecodePodsBodyResult {
  const items = (value as { items?: unknown }).items ?? [];
  if (!Array.isArray(items)) return { ok: false, errors: urlError(o.url, 'Invalid value: expected an array of pods', 'items') };
  const origin = { source: 'http' as const, location: o.url, nodeName: o.nodeName };
  const pods: Pod[] = [];
  const errors: SourceError[] = [];
  const names = new Set<string>();
  items.forEach((item, i) => {
    const decoded = decodeStaticPod(item, origin, { requireTypeMeta: false, allowedObjectReferences: o.allowedObjectReferences });
    if (!decoded.ok) {
      errors.push(...decoded.errors.map((e) => ({ ...e, path: e.path === '' ? `items[${i}]` : `items[${i}].${e.path}` })));
      return;
    }
    const name = podFullName(decoded.pod);
    if (names.has(name)) {
      errors.push(...urlError(o.url, `Duplicate value ${JSON.stringify(decoded.pod.metadata.name)}`, `items[${i}].metadata.name`));
      return;
    }
    names.add(name);
    pods.push(decoded.pod);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, pods };
}

/** Upstream extractFromURL's decoding: a body that is one Pod (tryDecodeSinglePod) or a PodList (YAML or JSON). */
export function decodePodsBody(body: string, o: PodsBodyOrigin): DecodePodsBodyResult {
  const parsed = parseManifest(body);
  if (!parsed.ok) return { ok: false, errors: urlError(o.url, parsed.reason, parsed.path) };
  const value = parsed.value;
  const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
  if (kind === 'PodList') return decodePodList(value, o);
  const decoded = decodeStaticPod(
    value,
    { source: 'http', location: o.url, nodeName: o.nodeName },
    { allowedObjectReferences: o.allowedObjectReferences },
  );
  return decoded.ok ? { ok: true, pods: [decoded.pod] } : decoded;
}
