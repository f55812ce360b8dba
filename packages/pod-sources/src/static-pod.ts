import { createHash } from 'node:crypto';
import type { Pod } from '@kubelet-ts/api';
import { ConfigHashAnnotationKey, ConfigSourceAnnotationKey, applyPodObjectDefaults, parsePod, validatePod } from '@kubelet-ts/api';
import { internalPodDump } from './internal/go-pod-dump.js';
import type { SourceError, StaticPodObjectReference } from './types.js';

/** Where a static pod came from: the kind of source and the file path or URL. */
export interface StaticPodOrigin {
  /** "file" or "http". */
  source: 'file' | 'http';
  /** The manifest file path, or the URL. */
  location: string;
  nodeName: string;
}

/**
 * The UID of a static pod exactly as the upstream kubelet computes it (applyDefaults in
 * pkg/kubelet/config/common.go): MD5 over go-spew's dump of the decoded internal core.Pod,
 * followed by `host:<node>file:<path>` for files or `url:<url>` for HTTP, in hex. `pod` is the
 * manifest as decoded with the API defaults only (applyPodObjectDefaults), as decodeStaticPod
 * passes it. Equal UIDs let either kubelet adopt the other's static pods; any change to the
 * manifest gives a new UID.
 */
export function staticPodUID(pod: Pod, origin: StaticPodOrigin): string {
  const hash = createHash('md5');
  hash.update(internalPodDump(pod), 'utf8');
  if (origin.source === 'file') hash.update(`host:${origin.nodeName}file:${origin.location}`, 'utf8');
  else hash.update(`url:${origin.location}`, 'utf8');
  return hash.digest('hex');
}

/**
 * Upstream applyDefaults (pkg/kubelet/config/common.go) for a static pod: UID from the content
 * (only when the manifest does not give one, as upstream), name `<name>-<lowercased node>`,
 * namespace "default" when empty, spec.nodeName, the config.hash (= UID) and config.source
 * annotations, a toleration of every NoExecute taint for file pods, and phase Pending.
 * Returns a new object. The config.seen annotation is added by the pod config mux when it first
 * sees the pod, as upstream.
 */
export function applyStaticPodDefaults(input: Pod, origin: StaticPodOrigin): Pod {
  const pod = structuredClone(input);
  if (pod.metadata.uid === '') pod.metadata.uid = staticPodUID(input, origin);
  pod.metadata.name = `${pod.metadata.name}-${origin.nodeName.toLowerCase()}`;
  if (pod.metadata.namespace === '') pod.metadata.namespace = 'default';
  pod.spec.nodeName = origin.nodeName;
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [ConfigHashAnnotationKey]: pod.metadata.uid,
    [ConfigSourceAnnotationKey]: origin.source,
  };
  if (origin.source === 'file') addOrUpdateToleration(pod, { operator: 'Exists', effect: 'NoExecute' });
  pod.status = { ...pod.status, phase: 'Pending' };
  return pod;
}

type Toleration = NonNullable<Pod['spec']['tolerations']>[number];

/** helper.AddOrUpdateTolerationInPod: replace a toleration matching key/operator/value/effect, else append. */
function addOrUpdateToleration(pod: Pod, toleration: Toleration): void {
  const list = pod.spec.tolerations ?? [];
  const same = (t: Toleration): boolean =>
    (t.key ?? '') === (toleration.key ?? '') &&
    (t.operator ?? '') === (toleration.operator ?? '') &&
    (t.value ?? '') === (toleration.value ?? '') &&
    (t.effect ?? '') === (toleration.effect ?? '');
  const index = list.findIndex(same);
  if (index >= 0) list[index] = toleration;
  else list.push(toleration);
  pod.spec.tolerations = list;
}

export interface FindApiObjectReferencesOptions {
  /** References not to report (the kubelet can serve them). Default none: upstream's rule. */
  allow?: readonly StaticPodObjectReference[];
}

export interface DecodeStaticPodOptions {
  /** Require apiVersion and kind (default true; PodList items from a URL may omit them). */
  requireTypeMeta?: boolean;
  /** API object references allowed in this kubelet (see StaticPodObjectReference). Default none. */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
}

export type DecodeStaticPodResult = { ok: true; pod: Pod } | { ok: false; errors: SourceError[] };

/**
 * The whole path from an untrusted object to a static pod, as upstream tryDecodeSinglePod:
 * type check and API defaults, "name is needed", static defaults, ValidatePod, and the rule that
 * static pods may not reference API objects (PreventStaticPodAPIReferences).
 */
export function decodeStaticPod(raw: unknown, origin: StaticPodOrigin, options: DecodeStaticPodOptions = {}): DecodeStaticPodResult {
  const toErrors = (issues: Array<{ path: string; reason: string }>): DecodeStaticPodResult => ({
    ok: false,
    errors: issues.map((i) => ({ source: origin.source, file: origin.location, path: i.path, reason: i.reason })),
  });
  const decoded = parsePod(raw, origin.location, {
    validate: false,
    applyDefaults: false,
    requireTypeMeta: options.requireTypeMeta ?? true,
  });
  if (!decoded.ok) return toErrors(decoded.errors);
  if (decoded.pod.metadata.name === '') return toErrors([{ path: 'metadata.name', reason: 'Required value: name is needed for the pod' }]);
  const pod = applyStaticPodDefaults(applyPodObjectDefaults(decoded.pod), origin);
  const issues = [...validatePod(pod), ...findApiObjectReferences(pod, { allow: options.allowedObjectReferences ?? [] })];
  if (issues.length > 0) return toErrors(issues);
  return { ok: true, pod };
}

/**
 * Fields through which a pod would reference API objects, which static pods may not do (upstream
 * podutil.HasAPIObjectReference, PreventStaticPodAPIReferences): service accounts, secrets
 * (including image pull secrets), config maps, claims, CSI drivers, trust bundles, pod certificates.
 * Upstream stops at the first one; we report every one. `options.allow` lifts the rule for the
 * references the kubelet can serve (kubelet-ts extension).
 */
export function findApiObjectReferences(pod: Pod, options: FindApiObjectReferencesOptions = {}): Array<{ path: string; reason: string }> {
  const allowed = new Set(options.allow ?? []);
  const found: Array<{ path: string; reason: string }> = [];
  const forbid = (path: string, resource: string): void => {
    found.push({ path, reason: `Forbidden: static pods may not reference ${resource}` });
  };
  const spec = pod.spec;
  if (spec.serviceAccountName !== undefined && spec.serviceAccountName !== '') forbid('spec.serviceAccountName', 'serviceaccounts');
  if (Array.isArray(spec.resourceClaims) && spec.resourceClaims.length > 0) forbid('spec.resourceClaims', 'resourceclaims');
  (spec.imagePullSecrets ?? []).forEach((_s, i) => forbid(`spec.imagePullSecrets[${i}]`, 'secrets'));
  (spec.volumes ?? []).forEach((v, i) => {
    const p = `spec.volumes[${i}]`;
    if (v.secret !== undefined && !allowed.has('secretVolumes')) forbid(`${p}.secret`, 'secrets (via secret volumes)');
    if (v.configMap !== undefined && !allowed.has('configMapVolumes')) forbid(`${p}.configMap`, 'configmaps (via configmap volumes)');
    if (v.persistentVolumeClaim !== undefined) forbid(`${p}.persistentVolumeClaim`, 'persistentvolumeclaims');
    if (v.ephemeral !== undefined) forbid(`${p}.ephemeral`, 'persistentvolumeclaims (via ephemeral volumes)');
    if (v.csi !== undefined && !allowed.has('csiVolumes')) forbid(`${p}.csi`, 'csidrivers (via CSI volumes)');
    else if (v.csi?.nodePublishSecretRef !== undefined && !allowed.has('secretVolumes'))
      forbid(`${p}.csi.nodePublishSecretRef`, 'secrets (via CSI volumes)');
    if (v.glusterfs !== undefined) forbid(`${p}.glusterfs`, 'endpoints (via glusterFS volumes)');
    if (v.azureFile !== undefined) forbid(`${p}.azureFile`, 'secrets (via azureFile volumes)');
    // Other in-tree volume types that name a secret (upstream VisitPodSecretNames).
    for (const key of ['rbd', 'cephfs', 'flexVolume', 'iscsi', 'cinder', 'scaleIO', 'storageos'] as const) {
      const source = v[key];
      if (typeof source === 'object' && source !== null && 'secretRef' in source) forbid(`${p}.${key}.secretRef`, 'secrets');
    }
    (v.projected?.sources ?? []).forEach((s, j) => {
      const sp = `${p}.projected.sources[${j}]`;
      if (s.secret !== undefined && !allowed.has('secretVolumes')) forbid(`${sp}.secret`, 'secrets (via projected volumes)');
      if (s.configMap !== undefined && !allowed.has('configMapVolumes')) forbid(`${sp}.configMap`, 'configmaps (via projected volumes)');
      if (s.serviceAccountToken !== undefined) forbid(`${sp}.serviceAccountToken`, 'serviceaccounts (via projected volumes)');
      if (s.clusterTrustBundle !== undefined) forbid(`${sp}.clusterTrustBundle`, 'clustertrustbundles');
      if (s.podCertificate !== undefined) forbid(`${sp}.podCertificate`, 'podcertificates');
    });
  });
  const containers: Array<[string, Pod['spec']['containers']]> = [
    ['spec.initContainers', spec.initContainers ?? []],
    ['spec.containers', spec.containers],
  ];
  for (const [field, list] of containers) {
    list.forEach((c, i) => {
      const p = `${field}[${i}]`;
      (c.env ?? []).forEach((e, j) => {
        if (e.valueFrom?.secretKeyRef !== undefined) forbid(`${p}.env[${j}].valueFrom.secretKeyRef`, 'secrets');
        if (e.valueFrom?.configMapKeyRef !== undefined) forbid(`${p}.env[${j}].valueFrom.configMapKeyRef`, 'configmaps');
      });
      (c.envFrom ?? []).forEach((e, j) => {
        if (e.secretRef !== undefined) forbid(`${p}.envFrom[${j}].secretRef`, 'secrets');
        if (e.configMapRef !== undefined) forbid(`${p}.envFrom[${j}].configMapRef`, 'configmaps');
      });
    });
  }
  return found;
}
