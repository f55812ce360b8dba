import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createPluginWatcher, pluginsRegistryDir } from './plugin-watcher.js';
import { FakePluginHandler, createFakeRegistrationServer } from './testing/index.js';
import type { FakeRegistrationServer, FakeRegistrationServerOptions } from './testing/index.js';

const DRIVER = 'bind.csi.kubelet-ts.test';
let tmp: string;
let registry: string;
const servers: FakeRegistrationServer[] = [];

beforeEach(async () => {
  tmp = await mkdtemp(join(os.tmpdir(), 'pm-plugins-'));
  registry = pluginsRegistryDir(join(tmp, 'root'));
  await mkdir(registry, { recursive: true });
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await rm(tmp, { recursive: true, force: true });
});

async function plugin(file: string, options: Partial<FakeRegistrationServerOptions> = {}): Promise<FakeRegistrationServer> {
  const server = createFakeRegistrationServer({
    socketPath: join(registry, file),
    name: DRIVER,
    endpoint: join(tmp, 'csi.sock'),
    ...options,
  });
  await server.start();
  servers.push(server);
  return server;
}

function setup() {
  const clock = new FakeClock();
  const csi = new FakePluginHandler();
  const watcher = createPluginWatcher({ dir: registry, handlers: { CSIPlugin: csi }, clock, watch: false });
  return { clock, csi, watcher };
}

describe('createPluginWatcher', () => {
  it('registers a plugin from its registration socket (GetInfo, validate, register, NotifyRegistrationStatus) and deregisters it when the socket goes', async () => {
    const { csi, watcher } = setup();
    const reg = await plugin('bind-reg.sock', { supportedVersions: ['1.0.0', '1.2.0'] });
    await watcher.sync();
    expect(reg.statuses).toEqual([{ pluginRegistered: true, error: '' }]);
    expect(csi.calls).toEqual([
      { method: 'validatePlugin', name: DRIVER, endpoint: join(tmp, 'csi.sock'), versions: ['1.0.0', '1.2.0'] },
      { method: 'registerPlugin', name: DRIVER, endpoint: join(tmp, 'csi.sock'), versions: ['1.0.0', '1.2.0'] },
    ]);
    expect(watcher.getRegisteredPlugins()).toEqual([
      {
        socketPath: join(registry, 'bind-reg.sock'),
        type: 'CSIPlugin',
        name: DRIVER,
        endpoint: join(tmp, 'csi.sock'),
        supportedVersions: ['1.0.0', '1.2.0'],
      },
    ]);

    // Nothing is asked again while the socket stays.
    await watcher.sync();
    expect(reg.getInfoCalls).toBe(1);

    await reg.stop();
    await watcher.sync();
    expect(csi.calls.at(-1)).toEqual({ method: 'deregisterPlugin', name: DRIVER, endpoint: join(tmp, 'csi.sock') });
    expect(csi.registered.size).toBe(0);
    expect(watcher.getRegisteredPlugins()).toEqual([]);
  });

  it('uses the registration socket as the endpoint when GetInfo gives none, finds sockets in subdirectories, ignores dot names and plain files', async () => {
    const { csi, watcher } = setup();
    await mkdir(join(registry, 'sub'));
    await writeFile(join(registry, 'not-a-socket'), '');
    const hidden = await plugin('.hidden.sock', { name: 'hidden.csi' });
    await plugin(join('sub', 'self-reg.sock'), { name: 'self.csi', endpoint: '' });
    await watcher.sync();
    expect(hidden.getInfoCalls).toBe(0);
    expect([...csi.registered]).toEqual([['self.csi', join(registry, 'sub', 'self-reg.sock')]]);
  });

  it('refuses unknown plugin types and plugins their handler refuses with the upstream messages, and retries with back-off while the socket stays', async () => {
    const { clock, csi, watcher } = setup();
    csi.validateError = new Error('none is 1.x');
    const device = await plugin('device.sock', { type: 'DevicePlugin', name: 'example.com/gpu' });
    const v2 = await plugin('v2.sock', { name: 'v2.csi', supportedVersions: ['2.0.0'] });
    await watcher.sync();
    expect(device.statuses).toEqual([
      {
        pluginRegistered: false,
        error: `RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket ${join(registry, 'device.sock')}`,
      },
    ]);
    expect(v2.statuses).toEqual([
      { pluginRegistered: false, error: 'RegisterPlugin error -- plugin validation failed with err: none is 1.x' },
    ]);
    expect(csi.methods()).toEqual(['validatePlugin']);

    await watcher.sync();
    expect(device.getInfoCalls).toBe(1);
    await clock.advance(500);
    await watcher.sync();
    expect(device.getInfoCalls).toBe(2);
  });

  it('does not keep a plugin whose registration fails, and registers it at a retry once the handler accepts it', async () => {
    const { clock, csi, watcher } = setup();
    csi.registerError = new Error('NodeGetInfo failed: not ready');
    const reg = await plugin('bind-reg.sock');
    await watcher.sync();
    expect(reg.statuses).toEqual([
      { pluginRegistered: false, error: 'RegisterPlugin error -- plugin registration failed with err: NodeGetInfo failed: not ready' },
    ]);
    expect(watcher.getRegisteredPlugins()).toEqual([]);
    csi.registerError = undefined;
    await clock.advance(500);
    await watcher.sync();
    expect(reg.statuses.at(-1)).toEqual({ pluginRegistered: true, error: '' });
    expect(csi.registered.get(DRIVER)).toBe(join(tmp, 'csi.sock'));
  });

  it('registers a plugin again when its socket is re-created', async () => {
    const { csi, watcher } = setup();
    const first = await plugin('bind-reg.sock');
    await watcher.sync();
    await first.stop();
    await plugin('bind-reg.sock');
    await watcher.sync();
    expect(csi.methods()).toEqual(['validatePlugin', 'registerPlugin', 'deregisterPlugin', 'validatePlugin', 'registerPlugin']);
    expect(watcher.getRegisteredPlugins()).toHaveLength(1);
  });
});

describe('createPluginWatcher.run', () => {
  it('creates the directory, registers what it finds, and returns once the signal aborts', async () => {
    const clock = new FakeClock();
    const csi = new FakePluginHandler();
    const dir = join(tmp, 'root2', 'plugins_registry');
    const watcher = createPluginWatcher({ dir, handlers: { CSIPlugin: csi }, clock, watch: false });
    const controller = new AbortController();
    const running = watcher.run(controller.signal);
    await watcher.sync();
    expect((await stat(dir)).isDirectory()).toBe(true);
    const reg = createFakeRegistrationServer({ socketPath: join(dir, 'late-reg.sock'), name: DRIVER, endpoint: join(tmp, 'csi.sock') });
    await reg.start();
    servers.push(reg);
    await watcher.sync();
    expect(csi.registered.has(DRIVER)).toBe(true);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });
});
