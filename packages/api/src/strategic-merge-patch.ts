// Strategic merge patches as the kubelet sends them (`Content-Type: application/strategic-merge-patch+json`):
// apimachinery's strategicpatch.CreateTwoWayMergePatch and component-helpers' PatchNodeStatus.
import { ApiError } from './errors.js';
import { diffMaps, jsonEqual, sortKeysDeep } from './internal/strategic-merge-diff.js';
import type { Json, JsonObject, PatchMeta } from './internal/strategic-merge-diff.js';
import type { Node } from './node.js';
import { NODE_PATCH_META } from './strategic-merge-patch-meta.js';

export type { PatchMeta };

/** A strategic merge patch: a JSON object with the directives (`$patch`, `$setElementOrder/…` …) in it. */
export type StrategicMergePatch = Record<string, unknown>;

/** The content type of a strategic merge patch. */
export const STRATEGIC_MERGE_PATCH_CONTENT_TYPE = 'application/strategic-merge-patch+json';

/** What Go's json.Marshal then json.Unmarshal leave of a value: `undefined` fields are gone. */
function toJsonObject(value: unknown, side: string): JsonObject {
  const json = JSON.parse(JSON.stringify(value ?? {})) as Json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ApiError('INVALID_PATCH', `cannot build a strategic merge patch: the ${side} object is not a JSON object`);
  }
  return json;
}

/**
 * The patch that turns `original` into `modified` (apimachinery strategicpatch.CreateTwoWayMergePatch):
 * objects merge per key with `null` deleting a key; lists whose metadata says `merge` are diffed by
 * their merge key with `$setElementOrder/<field>` and `{"<key>": k, "$patch": "delete"}` items, or
 * by value for scalar lists (`$deleteFromPrimitiveList/<field>`); other lists are replaced whole.
 * Identical objects give `{}`. Keys are sorted as Go marshals them, so `JSON.stringify` of the
 * result is byte for byte upstream's patch. Throws `ApiError` `INVALID_PATCH` where upstream fails
 * (an item of a merged list without its merge key, mixed or nested lists).
 */
export function createTwoWayMergePatch(original: unknown, modified: unknown, meta: PatchMeta): StrategicMergePatch {
  const patch = diffMaps(toJsonObject(original, 'original'), toJsonObject(modified, 'modified'), meta, false);
  return sortKeysDeep(patch) as StrategicMergePatch;
}

/**
 * The body of `PATCH nodes/<name>/status` that takes `oldNode` to `newNode` (component-helpers
 * PatchNodeStatus): the spec is taken from `oldNode` (the status subresource ignores it), and
 * because `status.addresses` is wrongly tagged to merge by `type`, changed addresses of a node that
 * had some are sent whole, followed by `{"$patch": "replace"}`.
 */
export function nodeStatusPatch(oldNode: Node, newNode: Node): StrategicMergePatch {
  const oldJson = toJsonObject(oldNode, 'original');
  const diffNode = toJsonObject(newNode, 'modified');
  if (oldJson['spec'] === undefined) delete diffNode['spec'];
  else diffNode['spec'] = oldJson['spec'];

  const oldAddresses = addressesOf(oldJson);
  const newAddresses = addressesOf(diffNode);
  // Semantic equality: no addresses and an empty list are the same.
  const replaceAddresses = oldAddresses.length > 0 && !jsonEqual(oldAddresses, newAddresses);
  if (replaceAddresses) {
    const status = diffNode['status'];
    diffNode['status'] = { ...(isJsonObject(status) ? status : {}), addresses: oldAddresses };
  }
  const patch = diffMaps(oldJson, diffNode, NODE_PATCH_META, false);
  if (replaceAddresses) {
    const status = patch['status'];
    patch['status'] = { ...(isJsonObject(status) ? status : {}), addresses: [...newAddresses, { $patch: 'replace' }] };
  }
  return sortKeysDeep(patch) as StrategicMergePatch;
}

function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function addressesOf(node: JsonObject): Json[] {
  const status = node['status'];
  const addresses = isJsonObject(status) ? status['addresses'] : undefined;
  return Array.isArray(addresses) ? addresses : [];
}
