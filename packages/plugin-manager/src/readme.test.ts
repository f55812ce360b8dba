// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { noopLogger } from '@kubelet-ts/common';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { PLUGIN_TYPE, createPluginWatcher, pluginsRegistryDir } from './index.js';
import type { PluginHandler } from './index.js';
import { createFakeRegistrationServer } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim: a plugin registered through its socket reaches its handler', async () => {
    const tmp = await mkdtemp(join(os.tmpdir(), 'pm-readme-'));
    const rootDir = join(tmp, 'root');
    await mkdir(pluginsRegistryDir(rootDir), { recursive: true });
    const registration = createFakeRegistrationServer({
      socketPath: join(pluginsRegistryDir(rootDir), 'demo-reg.sock'),
      name: 'demo.csi',
      endpoint: '/run/demo/csi.sock',
    });
    await registration.start();
    const controller = new AbortController();
    const signal = controller.signal;
    const logger = noopLogger;
    try {
      // README:begin
      const drivers = new Map<string, string>();
      const csiHandler: PluginHandler = {
        validatePlugin(name, _endpoint, versions) {
          if (!versions.some((v) => v.startsWith('1.'))) throw new Error(`${name}: no 1.x version in ${versions.join(', ')}`);
        },
        async registerPlugin(name, endpoint) {
          drivers.set(name, endpoint); // a real handler dials the plugin first (CSI: NodeGetInfo)
        },
        deregisterPlugin(name) {
          drivers.delete(name);
        },
      };
      const plugins = createPluginWatcher({ dir: pluginsRegistryDir(rootDir), handlers: { [PLUGIN_TYPE.CSIPlugin]: csiHandler }, logger });
      void plugins.run(signal); // rescans every second and on fs.watch events, until the signal aborts
      // README:end

      await plugins.sync(); // waits for the scan run() started, then scans once more
      expect(drivers.get('demo.csi')).toBe('/run/demo/csi.sock');
      expect(registration.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    } finally {
      controller.abort();
      await registration.stop();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
