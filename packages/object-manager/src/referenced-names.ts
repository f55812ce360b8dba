// Upstream pkg/api/v1/pod VisitPodSecretNames and VisitPodConfigmapNames: the names a pod's spec
// refers to (not transitive ones, e.g. pod → PVC → PV → secret); empty names are skipped.
import type { Pod } from '@kubelet-ts/api';

type Loose = Record<string, unknown>;

const obj = (v: unknown): Loose | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const nameOf = (v: unknown, field = 'name'): string | undefined => {
  const n = obj(v)?.[field];
  return typeof n === 'string' ? n : undefined;
};

/** Init containers, containers, then ephemeral containers (VisitContainers with AllContainers). */
function allContainers(pod: Pod): Loose[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])].flatMap((c) => {
    const o = obj(c);
    return o === undefined ? [] : [o];
  });
}

function containerNames(
  pod: Pod,
  from: 'configMapRef' | 'secretRef',
  keyRef: 'configMapKeyRef' | 'secretKeyRef',
  add: (n: string | undefined) => void,
): void {
  for (const c of allContainers(pod)) {
    for (const e of list(c.envFrom)) add(nameOf(obj(e)?.[from]));
    for (const e of list(c.env)) add(nameOf(obj(obj(e)?.valueFrom)?.[keyRef]));
  }
}

function collector(): { names: Set<string>; add: (n: string | undefined) => void } {
  const names = new Set<string>();
  return { names, add: (n) => void (n !== undefined && n !== '' && names.add(n)) };
}

type VolumeSourceNames = readonly [source: string, names: (source: Loose) => (string | undefined)[]];
const secretRef = (s: Loose): (string | undefined)[] => [nameOf(s.secretRef)];
const projected = (kind: 'secret' | 'configMap') => (s: Loose) => list(s.sources).map((p) => nameOf(obj(p)?.[kind]));

// Upstream's switch order: only the first source a volume has counts.
const SECRET_VOLUME_SOURCES: readonly VolumeSourceNames[] = [
  ['azureFile', (s) => [nameOf(s, 'secretName')]],
  ['cephfs', secretRef],
  ['cinder', secretRef],
  ['flexVolume', secretRef],
  ['projected', projected('secret')],
  ['rbd', secretRef],
  ['secret', (s) => [nameOf(s, 'secretName')]],
  ['scaleIO', secretRef],
  ['iscsi', secretRef],
  ['storageos', secretRef],
  ['csi', (s) => [nameOf(s.nodePublishSecretRef)]],
];
const CONFIG_MAP_VOLUME_SOURCES: readonly VolumeSourceNames[] = [
  ['projected', projected('configMap')],
  ['configMap', (s) => [nameOf(s)]],
];

function volumeNames(pod: Pod, sources: readonly VolumeSourceNames[], add: (n: string | undefined) => void): void {
  for (const volume of pod.spec.volumes ?? []) {
    for (const [key, names] of sources) {
      const source = obj((volume as Loose)[key]);
      if (source === undefined) continue;
      for (const n of names(source)) add(n);
      break;
    }
  }
}

/** The Secrets a pod names: imagePullSecrets, env and envFrom of every container, and volumes (CSI nodePublishSecretRef included). */
export function podSecretNames(pod: Pod): Set<string> {
  const { names, add } = collector();
  for (const ref of pod.spec.imagePullSecrets ?? []) add(ref.name);
  containerNames(pod, 'secretRef', 'secretKeyRef', add);
  volumeNames(pod, SECRET_VOLUME_SOURCES, add);
  return names;
}

/** The ConfigMaps a pod names: env and envFrom of every container, configMap volumes and projected sources. */
export function podConfigMapNames(pod: Pod): Set<string> {
  const { names, add } = collector();
  containerNames(pod, 'configMapRef', 'configMapKeyRef', add);
  volumeNames(pod, CONFIG_MAP_VOLUME_SOURCES, add);
  return names;
}
