import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { noopLogger } from '@kubelet-ts/common';
import { createCsiPluginRegistry, createDirectoryObjectSource, createStaticCsiDriverRegistry, createVolumeManager } from './index.js';
import { makeTempDir, mountsUnder } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import { createFakeCsiNodeServer } from './testing/index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const tmp = await makeTempDir('vm-readme-');
    try {
      const rootDir = join(tmp.path, 'root');
      const objectsDir = join(tmp.path, 'objects');
      await mkdir(objectsDir);
      await writeFile(
        join(objectsDir, 'config.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {app.conf: "port=80"}\n',
      );
      const pod = newPod({
        uid: 'readme',
        spec: {
          volumes: [
            { name: 'config', configMap: { name: 'app' } },
            { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
          ],
        },
        containers: [{ name: 'app', volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] }],
      });

      // README:begin
      const volumes = createVolumeManager({
        rootDir, // --root-dir, /var/lib/kubelet
        sources: createDirectoryObjectSource({ dir: objectsDir }), // ConfigMap/Secret manifests (standalone mode)
        csiDrivers: createStaticCsiDriverRegistry({ 'hostpath.csi.k8s.io': '/var/lib/kubelet/plugins/csi-hostpath/csi.sock' }),
      });
      const reconciler = new AbortController();
      void volumes.run(reconciler.signal); // periodic re-sync of configMap/secret/downwardAPI/projected content

      await volumes.waitForAttachAndMount(pod); // before the pod's containers start; rejects with "MountVolume.SetUp failed for volume …"
      const mounts = await volumes.getMountsForContainer(pod, pod.spec.containers[0]!);
      // [{ containerPath: '/etc/app', hostPath: '<rootDir>/pods/<uid>/volumes/kubernetes.io~configmap/config', readOnly: true }]

      await volumes.teardownPod(pod.metadata.uid); // after its containers stopped
      reconciler.abort();
      // README:end

      expect(mounts).toEqual([
        { containerPath: '/etc/app', hostPath: join(rootDir, 'pods/readme/volumes/kubernetes.io~configmap/config'), readOnly: true },
      ]);
      expect(await mountsUnder(rootDir)).toEqual([]);
      const block = /## Usage\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      expect(block.split('\n').slice(2).join('\n').trimEnd()).toBe(readmeSnippet(readFileSync(__filename, 'utf8')));
    } finally {
      await tmp.cleanup();
    }
  });

  it('runs the CSI registration snippet, which is the README block verbatim: a driver registered as the plugin watcher does is found', async () => {
    const tmp = await makeTempDir('vm-readme-reg-');
    const rootDir = join(tmp.path, 'root');
    await mkdir(join(tmp.path, 'backing'));
    const csiSocket = join(tmp.path, 'csi.sock');
    const driver = createFakeCsiNodeServer({
      socketPath: csiSocket,
      mounter: createSystemMounter(),
      backingDir: join(tmp.path, 'backing'),
    });
    await driver.start();
    const logger = noopLogger;
    try {
      // REG:begin
      const csiDrivers = createCsiPluginRegistry({ logger }); // the CSIPlugin handler of @kubelet-ts/plugin-manager's watcher
      const volumes = createVolumeManager({ rootDir, csiDrivers });
      // What the watcher does with a driver's registration socket:
      csiDrivers.validatePlugin('demo.csi', csiSocket, ['1.0.0']);
      await csiDrivers.registerPlugin('demo.csi', csiSocket, ['1.0.0']); // NodeGetInfo; CSI volumes of demo.csi now use csiSocket
      // REG:end

      expect(csiDrivers.get('demo.csi')).toEqual({ endpoint: csiSocket });
      expect(volumes.getMountedVolumes()).toEqual([]);
      const block = /### CSI driver registration\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
      expect(block.split('\n').slice(2).join('\n').trimEnd()).toBe(
        readmeSnippet(readFileSync(__filename, 'utf8'), { begin: '// REG:' + 'begin', end: '// REG:' + 'end' }),
      );
    } finally {
      await driver.stop();
      await tmp.cleanup();
    }
  });
});
