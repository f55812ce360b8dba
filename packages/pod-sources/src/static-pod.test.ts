import type { Pod } from '@kubelet-ts/api';
import { PodSchema } from '@kubelet-ts/api';
import { applyStaticPodDefaults, decodeStaticPod, findApiObjectReferences, staticPodUID } from './static-pod.js';
import type { StaticPodOrigin } from './static-pod.js';

const origin: StaticPodOrigin = { source: 'file', location: '/etc/kubernetes/manifests/web.yaml', nodeName: 'node-1' };
const manifest = (image = 'nginx:1.25', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', ...extra },
  spec: { containers: [{ name: 'app', image }] },
});
const decode = (raw: unknown, o: StaticPodOrigin = origin): Pod => {
  const result = decodeStaticPod(raw, o);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.pod;
};

describe('static pod UID', () => {
  it('is deterministic for the same content, node and path', () => {
    const a = decode(manifest());
    const b = decode(manifest());
    expect(a.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(b.metadata.uid).toBe(a.metadata.uid);
    // Key order in the manifest does not matter: the hash is over canonical JSON.
    const reordered = {
      spec: { containers: [{ image: 'nginx:1.25', name: 'app' }] },
      metadata: { name: 'web' },
      kind: 'Pod',
      apiVersion: 'v1',
    };
    expect(decode(reordered).metadata.uid).toBe(a.metadata.uid);
  });

  it('changes when the manifest, the node or the file path changes', () => {
    const base = decode(manifest()).metadata.uid;
    expect(decode(manifest('nginx:1.26')).metadata.uid).not.toBe(base);
    expect(decode(manifest(), { ...origin, nodeName: 'node-2' }).metadata.uid).not.toBe(base);
    expect(decode(manifest(), { ...origin, location: '/etc/kubernetes/manifests/other.yaml' }).metadata.uid).not.toBe(base);
    expect(decode(manifest(), { source: 'http', location: 'http://x/pods', nodeName: 'node-1' }).metadata.uid).not.toBe(base);
  });

  it('keeps a UID given in the manifest, as upstream', () => {
    const pod = decode(manifest('nginx:1.25', { uid: 'given-uid' }));
    expect(pod.metadata.uid).toBe('given-uid');
    expect(pod.metadata.annotations?.['kubernetes.io/config.hash']).toBe('given-uid');
  });

  it('hashes url:<url> for HTTP pods, independent of the node', () => {
    const pod = PodSchema.parse(manifest());
    const http = { source: 'http' as const, location: 'http://x/pods', nodeName: 'a' };
    expect(staticPodUID(pod, http)).toBe(staticPodUID(pod, { ...http, nodeName: 'b' }));
  });
});

describe('applyStaticPodDefaults', () => {
  it('names, binds and annotates the pod like upstream applyDefaults', () => {
    const pod = decode(manifest());
    expect(pod.metadata.name).toBe('web-node-1');
    expect(pod.metadata.namespace).toBe('default');
    expect(pod.spec.nodeName).toBe('node-1');
    expect(pod.metadata.annotations).toEqual({
      'kubernetes.io/config.hash': pod.metadata.uid,
      'kubernetes.io/config.source': 'file',
    });
    expect(pod.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    expect(pod.status?.phase).toBe('Pending');
    // API defaults were applied too.
    expect(pod.spec.restartPolicy).toBe('Always');
  });

  it('lowercases the node name in the pod name but not in spec.nodeName, as upstream', () => {
    const pod = applyStaticPodDefaults(PodSchema.parse(manifest()), { ...origin, nodeName: 'Node-A' });
    expect(pod.metadata.name).toBe('web-node-a');
    expect(pod.spec.nodeName).toBe('Node-A');
  });

  it('does not duplicate an existing NoExecute-everything toleration, and HTTP pods get none', () => {
    const raw = PodSchema.parse({
      metadata: { name: 'a' },
      spec: { containers: [{ name: 'c', image: 'x' }], tolerations: [{ operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] },
    });
    expect(applyStaticPodDefaults(raw, origin).spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    expect(applyStaticPodDefaults(raw, { ...origin, source: 'http' }).spec.tolerations).toEqual([
      { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
    ]);
  });
});

describe('decodeStaticPod errors', () => {
  const errors = (raw: unknown) => {
    const result = decodeStaticPod(raw, origin);
    if (result.ok) throw new Error('expected failure');
    return result.errors.map((e) => `${e.source}|${e.file}|${e.path}|${e.reason}`);
  };

  it('attributes each problem to source, file, path and reason', () => {
    expect(
      errors({
        ...manifest(),
        spec: {
          containers: [
            { name: 'app', image: 'x' },
            { name: 'app', image: 'y' },
          ],
        },
      }),
    ).toEqual(['file|/etc/kubernetes/manifests/web.yaml|spec.containers[1].name|Duplicate value "app"']);
  });

  it('requires a name', () => {
    expect(errors({ ...manifest(), metadata: {} })).toEqual([
      'file|/etc/kubernetes/manifests/web.yaml|metadata.name|Required value: name is needed for the pod',
    ]);
  });

  it('forbids references to API objects', () => {
    const raw = {
      ...manifest(),
      spec: {
        serviceAccountName: 'sa',
        imagePullSecrets: [{ name: 'reg' }],
        volumes: [
          { name: 's', secret: { secretName: 'x' } },
          { name: 'c', csi: { driver: 'd' } },
          { name: 'p', projected: { sources: [{ downwardAPI: {} }, { serviceAccountToken: { path: 't' } }] } },
          { name: 'r', rbd: { image: 'i', monitors: ['m'], secretRef: { name: 's' } } },
        ],
        containers: [{ name: 'app', image: 'x', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }] }],
      },
    };
    expect(errors(raw)).toEqual([
      'file|/etc/kubernetes/manifests/web.yaml|spec.serviceAccountName|Forbidden: static pods may not reference serviceaccounts',
      'file|/etc/kubernetes/manifests/web.yaml|spec.imagePullSecrets[0]|Forbidden: static pods may not reference secrets',
      'file|/etc/kubernetes/manifests/web.yaml|spec.volumes[0].secret|Forbidden: static pods may not reference secrets (via secret volumes)',
      'file|/etc/kubernetes/manifests/web.yaml|spec.volumes[1].csi|Forbidden: static pods may not reference csidrivers (via CSI volumes)',
      'file|/etc/kubernetes/manifests/web.yaml|spec.volumes[2].projected.sources[1].serviceAccountToken|Forbidden: static pods may not reference serviceaccounts (via projected volumes)',
      'file|/etc/kubernetes/manifests/web.yaml|spec.volumes[3].rbd.secretRef|Forbidden: static pods may not reference secrets',
      'file|/etc/kubernetes/manifests/web.yaml|spec.containers[0].env[0].valueFrom.configMapKeyRef|Forbidden: static pods may not reference configmaps',
    ]);
  });

  it('lets a kubelet that can serve them allow configMap/secret volumes and inline CSI volumes, and still refuses every other reference', () => {
    const raw = {
      ...manifest(),
      spec: {
        volumes: [
          { name: 'cm', configMap: { name: 'app' } },
          { name: 's', secret: { secretName: 'x' } },
          {
            name: 'p',
            projected: { sources: [{ configMap: { name: 'app' } }, { secret: { name: 'x' } }, { serviceAccountToken: { path: 't' } }] },
          },
          { name: 'c', csi: { driver: 'd', nodePublishSecretRef: { name: 'creds' } } },
        ],
        containers: [{ name: 'app', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }],
      },
    };
    const decode = (allowedObjectReferences: Array<'configMapVolumes' | 'secretVolumes' | 'csiVolumes'>): string[] => {
      const result = decodeStaticPod(raw, { source: 'file', location: '/m/web.yaml', nodeName: 'node-a' }, { allowedObjectReferences });
      return result.ok ? [] : result.errors.map((e) => e.path);
    };
    expect(decode(['configMapVolumes', 'secretVolumes', 'csiVolumes'])).toEqual([
      'spec.volumes[2].projected.sources[2].serviceAccountToken',
      'spec.containers[0].env[0].valueFrom.secretKeyRef',
    ]);
    // A CSI volume's nodePublishSecretRef needs secrets too.
    expect(decode(['configMapVolumes', 'csiVolumes'])).toEqual([
      'spec.volumes[1].secret',
      'spec.volumes[2].projected.sources[1].secret',
      'spec.volumes[2].projected.sources[2].serviceAccountToken',
      'spec.volumes[3].csi.nodePublishSecretRef',
      'spec.containers[0].env[0].valueFrom.secretKeyRef',
    ]);
    expect(decode([])).toContain('spec.volumes[0].configMap');
    const parsed = PodSchema.parse(raw);
    expect(findApiObjectReferences(parsed).map((r) => r.path)).toContain('spec.volumes[3].csi');
    expect(findApiObjectReferences(parsed, { allow: ['csiVolumes', 'secretVolumes'] }).map((r) => r.path)).not.toContain(
      'spec.volumes[3].csi',
    );
  });

  // Found by the decoder fuzzer (mutated valid pod, a deep subtree): a RangeError escaped decodeStaticPod.
  it('reports a subtree nested too deep with its field path instead of throwing', () => {
    let deep: unknown = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const result = decodeStaticPod({ ...manifest(), metadata: { name: 'web', annotations: { a: deep } } }, origin);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual([
        {
          source: 'file',
          file: origin.location,
          path: 'metadata.annotations[a][0][0][0][0][0]…',
          reason: expect.stringMatching(/nested more than 1000 levels deep/),
        },
      ]);
    }
  });
});
