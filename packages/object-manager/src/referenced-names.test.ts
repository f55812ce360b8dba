import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { podConfigMapNames, podSecretNames } from './referenced-names.js';

const pod: Pod = newPod({
  initContainers: [{ name: 'init', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's-init-env', key: 'k' } } }] }],
  containers: [
    {
      name: 'app',
      envFrom: [{ configMapRef: { name: 'cm-envfrom' } }, { secretRef: { name: 's-envfrom' } }],
      env: [
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm-env', key: 'k' } } },
        { name: 'C', valueFrom: { configMapKeyRef: { name: '', key: 'k' } } },
      ],
    },
  ],
  spec: {
    imagePullSecrets: [{ name: 's-pull' }, { name: '' }],
    ephemeralContainers: [{ name: 'debug', image: 'busybox:1.36', envFrom: [{ secretRef: { name: 's-ephemeral' } }] }],
    volumes: [
      { name: 'cm', configMap: { name: 'cm-vol' } },
      { name: 'sec', secret: { secretName: 's-vol' } },
      {
        name: 'proj',
        projected: {
          sources: [{ configMap: { name: 'cm-proj' } }, { secret: { name: 's-proj' } }, { serviceAccountToken: { path: 't' } }],
        },
      },
      { name: 'csi', csi: { driver: 'd', nodePublishSecretRef: { name: 's-csi' } } },
      { name: 'rbd', rbd: { secretRef: { name: 's-rbd' } } } as never,
      { name: 'az', azureFile: { secretName: 's-azure', shareName: 'x' } } as never,
    ],
  },
});

describe('referenced names (upstream VisitPodSecretNames / VisitPodConfigmapNames)', () => {
  it('finds every Secret: pull secrets, env and envFrom of all containers, secret, projected, CSI and other volume refs', () => {
    expect([...podSecretNames(pod)].sort()).toEqual(
      ['s-azure', 's-csi', 's-envfrom', 's-ephemeral', 's-init-env', 's-proj', 's-pull', 's-rbd', 's-vol'].sort(),
    );
  });

  it('finds every ConfigMap: env and envFrom, configMap volumes and projected sources, skipping empty names', () => {
    expect([...podConfigMapNames(pod)].sort()).toEqual(['cm-env', 'cm-envfrom', 'cm-proj', 'cm-vol']);
  });
});
