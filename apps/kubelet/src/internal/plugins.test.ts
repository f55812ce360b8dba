import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { PLUGIN_TYPE } from '@kubelet-ts/plugin-manager';
import { createFakeRegistrationServer } from '@kubelet-ts/plugin-manager/testing';
import { createCsiPluginRegistry, createSystemMounter } from '@kubelet-ts/volume-manager';
import { createFakeCsiNodeServer } from '@kubelet-ts/volume-manager/testing';
import { createKubeletPluginManager } from './plugins.js';

describe('kubelet plugin manager wiring', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'kubelet-plugins-'));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('hands a CSI driver registered in <root-dir>/plugins_registry to the CSI registry of the volume manager', async () => {
    await mkdir(path.join(tmp, 'backing'));
    const csiSocket = path.join(tmp, 'csi.sock');
    const driver = createFakeCsiNodeServer({
      socketPath: csiSocket,
      mounter: createSystemMounter(),
      backingDir: path.join(tmp, 'backing'),
    });
    await driver.start();
    const rootDir = path.join(tmp, 'root');
    await mkdir(path.join(rootDir, 'plugins_registry'), { recursive: true });
    const registration = createFakeRegistrationServer({
      socketPath: path.join(rootDir, 'plugins_registry', 'demo-reg.sock'),
      name: 'demo.csi',
      endpoint: csiSocket,
    });
    await registration.start();
    try {
      const csiDrivers = createCsiPluginRegistry();
      const plugins = createKubeletPluginManager({
        rootDir,
        handlers: { [PLUGIN_TYPE.CSIPlugin]: csiDrivers },
        clock: new FakeClock(),
        logger: new RecordingLogger(),
      });
      await plugins.sync();
      expect(csiDrivers.get('demo.csi')).toEqual({ endpoint: csiSocket });
      expect(registration.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
    } finally {
      await registration.stop();
      await driver.stop();
    }
  });
});
