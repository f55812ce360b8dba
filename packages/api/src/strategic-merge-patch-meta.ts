// The strategic-merge metadata of the kinds the kubelet patches: the `patchStrategy`/`patchMergeKey`
// tags of k8s.io/api core/v1 (as published in the ~1.34 OpenAPI), as data. Lists not named here are
// atomic; objects not named merge per key.
import type { PatchMeta } from './internal/strategic-merge-diff.js';

const mergeBy = (mergeKey: string, fields?: Readonly<Record<string, PatchMeta>>): PatchMeta =>
  fields === undefined ? { strategy: 'merge', mergeKey } : { strategy: 'merge', mergeKey, fields };
const mergeKeepingKeysBy = (mergeKey: string): PatchMeta => ({ strategy: 'merge', mergeKey, retainKeys: true });
/** A merged list of scalars (`$deleteFromPrimitiveList`). */
const mergeScalars: PatchMeta = { strategy: 'merge' };

/** ObjectMeta: owner references by `uid`, finalizers as a set. */
const OBJECT_META: PatchMeta = { fields: { ownerReferences: mergeBy('uid'), finalizers: mergeScalars } };

/** Any kind whose only merged lists are in its metadata (coordination/v1 Lease, core/v1 Event, CSR …). */
export const OBJECT_PATCH_META: PatchMeta = { fields: { metadata: OBJECT_META } };

/** core/v1 Node. */
export const NODE_PATCH_META: PatchMeta = {
  fields: {
    metadata: OBJECT_META,
    // spec.taints is atomic.
    spec: { fields: { podCIDRs: mergeScalars } },
    // images, volumesInUse, volumesAttached, runtimeHandlers are atomic. addresses is tagged to merge
    // by `type`, which is wrong for two addresses of a type: nodeStatusPatch replaces it instead.
    status: { fields: { conditions: mergeBy('type'), addresses: mergeBy('type') } },
  },
};

/** core/v1 Container and the common part of EphemeralContainer. */
const CONTAINER: PatchMeta = {
  fields: {
    env: mergeBy('name'),
    ports: mergeBy('containerPort'),
    volumeMounts: mergeBy('mountPath'),
    volumeDevices: mergeBy('devicePath'),
  },
};

/** core/v1 Pod. */
export const POD_PATCH_META: PatchMeta = {
  fields: {
    metadata: OBJECT_META,
    // tolerations and readinessGates are atomic.
    spec: {
      fields: {
        containers: mergeBy('name', CONTAINER.fields),
        initContainers: mergeBy('name', CONTAINER.fields),
        ephemeralContainers: mergeBy('name', CONTAINER.fields),
        volumes: mergeKeepingKeysBy('name'),
        imagePullSecrets: mergeBy('name'),
        hostAliases: mergeBy('ip'),
        schedulingGates: mergeBy('name'),
        resourceClaims: mergeKeepingKeysBy('name'),
        topologySpreadConstraints: mergeBy('topologyKey'),
      },
    },
    // containerStatuses, initContainerStatuses and ephemeralContainerStatuses are atomic.
    status: {
      fields: {
        conditions: mergeBy('type'),
        podIPs: mergeBy('ip'),
        hostIPs: mergeBy('ip'),
        resourceClaimStatuses: mergeKeepingKeysBy('name'),
      },
    },
  },
};
